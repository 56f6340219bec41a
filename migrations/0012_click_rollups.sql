-- Roll-ups written with the clicks (issue 21): the click writer adds each batch's tallies to
-- link_rollups in the transaction that stores its rows, so no analytics read folds raw rows.
-- Clicks stored before this migration are added by a one-time backfill that the click worker
-- runs in small batches in the background (src/analytics/clickWorker.ts): every click with an
-- id up to `upto` is old; `done` is the highest id the backfill has passed. A link's clicks up
-- to its old roll-up mark (link_rollups 'summary'/'mark_id') were already tallied and are
-- skipped. The backfill is finished when done = upto.
CREATE TABLE click_backfill (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  upto INTEGER NOT NULL,
  done INTEGER NOT NULL
);
INSERT INTO click_backfill (id, upto, done)
  SELECT 1, MAX(COALESCE((SELECT MAX(id) FROM link_analytics), 0), (SELECT folded FROM click_fold)), 0;

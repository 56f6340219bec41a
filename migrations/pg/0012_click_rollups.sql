-- Mirrors migrations/0012_click_rollups.sql: the one-time background backfill of roll-ups for
-- clicks stored before the click writer kept them (src/analytics/clickWorker.ts).
CREATE TABLE click_backfill (
  id integer PRIMARY KEY CHECK (id = 1),
  upto bigint NOT NULL,
  done bigint NOT NULL
);
INSERT INTO click_backfill (id, upto, done)
  SELECT 1, GREATEST(COALESCE((SELECT MAX(id) FROM link_analytics), 0), (SELECT folded FROM click_fold WHERE id = 1)), 0;

-- A link's clicks in id order, for every per-link reader on PostgreSQL (src/analytics/store.ts:
-- roll-ups, the last click, the click pages, the CSV; the delete trigger and reset find a link's
-- clicks above the fold mark through it too). PostgreSQL's click writer (pgWriterStore.ts)
-- keeps this btree up per row instead of folding into link_clicks as SQLite's does: measured,
-- the index costs it ~1 µs of server CPU a click, the fold more (docs/decisions.md). link_clicks
-- and click_fold stay: they hold whatever migrate-data copied from a folded SQLite install, and
-- the fold mark's row is what the click writers take turns on.
CREATE INDEX link_analytics_link_id ON link_analytics (link_id, id);

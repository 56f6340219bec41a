-- PostgreSQL only (migrations/pg/0011_click_link_index.sql: link_analytics gets its (link_id, id)
-- index back there, and the click writer does not fold). SQLite keeps the fold of 0008, whose
-- sorted bulk inserts cost its writer less than a per-click index entry; nothing to make here.
-- The file keeps the version numbers of both backends in step (bun:sqlite refuses a file of
-- comments only as an empty query).
SELECT 1;

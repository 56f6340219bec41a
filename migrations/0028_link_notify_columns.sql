-- The twin of migrations/pg/0028_link_notify_columns.sql, which narrows PostgreSQL's redirect-map
-- trigger to the columns a redirect reads. SQLite has no such trigger (one instance keeps its map
-- by its own writes), so nothing changes here: the version stays the same on both backends.
SELECT 1;

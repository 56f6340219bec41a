-- PostgreSQL only (migrations/pg/0009_link_notify.sql: a trigger that NOTIFYs every instance of
-- a link write). SQLite serves one instance, whose own writes keep its redirect map exact, so
-- there is nothing to make here; the file keeps the version numbers of both backends in step.
-- (A file of comments only is refused by bun:sqlite as an empty query.)
SELECT 1;

-- PostgreSQL only (migrations/pg/0014_link_changes.sql: the change log an instance reads to
-- catch up after its listening connection dropped). SQLite serves one instance, whose own writes
-- keep its redirect map exact; the file keeps the version numbers of both backends in step.
SELECT 1;

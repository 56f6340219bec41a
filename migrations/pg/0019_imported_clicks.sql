-- Twin of migrations/0019_imported_clicks.sql: the source tool's visit count of an imported link.
ALTER TABLE short_links ADD COLUMN imported_clicks bigint;

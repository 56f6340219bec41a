-- The covering index migrations/0027_links_owner_by_id.sql adds for SQLite's searched counts,
-- here too so both schemas stay alike (src/db/pg.pg.test.ts); PostgreSQL's count reads the
-- list in id order and can check a row's owner from it without the heap.
CREATE INDEX short_links_owner_by_id ON short_links(id, user_id, tracker);

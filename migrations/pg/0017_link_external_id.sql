-- Twin of migrations/0017_link_external_id.sql: a client's own id for a link, unique per user.
ALTER TABLE short_links ADD COLUMN external_id text COLLATE "C";
CREATE UNIQUE INDEX short_links_external_id ON short_links(user_id, external_id) WHERE external_id IS NOT NULL;

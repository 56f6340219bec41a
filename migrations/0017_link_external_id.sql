-- Idempotent create (issue 23): a client's own id for a link, unique per user, so a create
-- retried with the same externalId finds the link the first attempt made instead of a second.
ALTER TABLE short_links ADD COLUMN external_id TEXT;
CREATE UNIQUE INDEX short_links_external_id ON short_links(user_id, external_id) WHERE external_id IS NOT NULL;

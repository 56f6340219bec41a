-- The redirect map's catch-up (src/links/follow.ts). A notification reaches only a listener
-- connected at the time: an instance whose listening connection dropped (a PostgreSQL restart,
-- a cut or silent connection) reads here what changed while it was away, rather than calling
-- its whole map unusable until it is read again. Each link write leaves one row, written by the
-- trigger of 0009 in the writing transaction, with that transaction's id: a follower remembers
-- the snapshot xmin its notifications were complete up to, and after listening again reads the
-- rows of every transaction from there (rows of changes it already had are read again harmlessly:
-- the link itself is read as it is now). Rows older than a day are deleted by the instances;
-- one away for longer reads its whole map again (while still serving from the one it has).
CREATE TABLE link_changes (
  seq bigserial PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  link_id bigint NOT NULL,
  -- The code before the write (the new one for an insert): a rename or delete drops it.
  code text NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX link_changes_xid ON link_changes (xid);
CREATE INDEX link_changes_at ON link_changes (at);

CREATE OR REPLACE FUNCTION short_links_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF TG_OP = 'INSERT' THEN r := NEW; ELSE r := OLD; END IF;
  INSERT INTO link_changes (link_id, code) VALUES (r.id, r.short_code);
  PERFORM pg_notify('threadlink_links', json_build_array(r.id, r.short_code)::text);
  RETURN NULL;
END $$;

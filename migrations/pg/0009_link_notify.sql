-- Every instance keeps a code → link map for its redirects (src/links/service.ts) and follows
-- the others' writes through LISTEN threadlink_links (src/links/follow.ts). A trigger rather
-- than a notify in each store method: it catches every write path (routes, bulk create, import,
-- the CLI, a hand-run UPDATE), and PostgreSQL delivers it at commit, never for a rollback.
-- The payload is [id, code]: the code the row had before the write (the new one for an insert),
-- so a follower can drop a renamed or deleted code; the row itself is read again by id.
CREATE FUNCTION short_links_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM pg_notify('threadlink_links', json_build_array(NEW.id, NEW.short_code)::text);
  ELSE
    PERFORM pg_notify('threadlink_links', json_build_array(OLD.id, OLD.short_code)::text);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER short_links_notify AFTER INSERT OR UPDATE OR DELETE ON short_links
  FOR EACH ROW EXECUTE FUNCTION short_links_notify();

-- The redirect map's trigger (0009, 0014) fired for every update of a link, also for columns no
-- redirect reads: a title, a description, the owner. Each wrote a link_changes row and made every
-- instance read the link again. Moving 750,000 links between accounts (tenant-scale.ts) left
-- 1.5 million change rows for autovacuum and 1.5 million notifications for the followers. An
-- update now announces itself only when a column the map keeps (service.ts toCached; the rows
-- store.ts reads for it) changes; inserts and deletes always do.
DROP TRIGGER short_links_notify ON short_links;
CREATE TRIGGER short_links_notify AFTER INSERT OR DELETE ON short_links
  FOR EACH ROW EXECUTE FUNCTION short_links_notify();
CREATE TRIGGER short_links_notify_update AFTER UPDATE ON short_links
  FOR EACH ROW
  WHEN (OLD.short_code IS DISTINCT FROM NEW.short_code
    OR OLD.tracker IS DISTINCT FROM NEW.tracker
    OR OLD.original_url IS DISTINCT FROM NEW.original_url
    OR OLD.active IS DISTINCT FROM NEW.active
    OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.smart IS DISTINCT FROM NEW.smart
    OR OLD.clicks_reset IS DISTINCT FROM NEW.clicks_reset)
  EXECUTE FUNCTION short_links_notify();

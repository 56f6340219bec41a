-- Mirrors migrations/0008_click_fold.sql: click rows without a per-link index or foreign key;
-- the per-link index is link_clicks, filled in bulk up to the fold mark in click_fold, and a
-- link's clicks go with it through the trigger. (PostgreSQL alters the table in place where
-- SQLite rebuilds it.)
ALTER TABLE link_analytics DROP CONSTRAINT link_analytics_link_id_fkey;
DROP INDEX link_analytics_link;

-- A link's clicks up to the fold mark, in id (= capture) order.
CREATE TABLE link_clicks (
  link_id integer NOT NULL,
  click_id bigint NOT NULL,
  PRIMARY KEY (link_id, click_id)
);
INSERT INTO link_clicks (link_id, click_id) SELECT link_id, id FROM link_analytics ORDER BY link_id, id;

-- The fold mark: every click with an id up to it is in link_clicks, none above it is.
CREATE TABLE click_fold (
  id integer PRIMARY KEY CHECK (id = 1),
  folded bigint NOT NULL
);
INSERT INTO click_fold (id, folded) SELECT 1, COALESCE(MAX(id), 0) FROM link_analytics;

-- A link's clicks go with it (the link, or its account through the cascade): folded ones
-- through link_clicks, the tail by its id range.
CREATE FUNCTION short_links_delete_clicks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = OLD.id);
  DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = OLD.id;
  DELETE FROM link_clicks WHERE link_id = OLD.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER short_links_delete_clicks AFTER DELETE ON short_links
  FOR EACH ROW EXECUTE FUNCTION short_links_delete_clicks();

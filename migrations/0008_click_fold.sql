-- Click rows without a per-link index (issue 12, docs/performance.md "folded per-link index").
-- The (link_id) index was the one per-click cost that grew with the table: every transaction of
-- clicks over many links rewrote most of its leaf pages. Click rows are now appended with no
-- index but the visitor one (whose new entries land at its end), and the per-link index is a
-- narrow table the click writer fills in bulk, sorted, every few tens of thousands of clicks
-- (a "fold"). Clicks above the fold mark (the unfolded tail) are found by scanning that tail,
-- which is bounded by the fold interval; every per-link reader reads both.

-- The foreign key goes: its ON DELETE CASCADE needs an index on link_id (without one, deleting
-- a link or an account scanned every click). The trigger below deletes through link_clicks and
-- the tail instead. Rebuilt as SQLite alters a table: copy, drop, rename.
CREATE TABLE link_analytics_new (
  id INTEGER PRIMARY KEY,
  link_id INTEGER NOT NULL,
  timestamp TEXT NOT NULL,
  referrer TEXT,
  user_agent TEXT,
  ip TEXT,
  country TEXT,
  city TEXT,
  device_type TEXT,
  browser TEXT,
  os TEXT,
  visitor_id TEXT,
  is_bot INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO link_analytics_new SELECT id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata FROM link_analytics;
DROP TABLE link_analytics;
ALTER TABLE link_analytics_new RENAME TO link_analytics;
-- Visit numbers: a visitor's earlier clicks on a link, folded or not.
CREATE INDEX link_analytics_visitor ON link_analytics(visitor_id, link_id);

-- A link's clicks up to the fold mark, in id (= capture) order.
CREATE TABLE link_clicks (
  link_id INTEGER NOT NULL,
  click_id INTEGER NOT NULL,
  PRIMARY KEY (link_id, click_id)
) WITHOUT ROWID;
INSERT INTO link_clicks (link_id, click_id) SELECT link_id, id FROM link_analytics ORDER BY link_id, id;

-- The fold mark: every click with an id up to it is in link_clicks, none above it is. The
-- writer gives new clicks ids above it even when the newest clicks were deleted.
CREATE TABLE click_fold (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  folded INTEGER NOT NULL
);
INSERT INTO click_fold (id, folded) SELECT 1, COALESCE(MAX(id), 0) FROM link_analytics;

-- A link's clicks go with it (the link, or its account): folded ones through link_clicks, the
-- tail by its id range. Foreign key actions fire triggers, so an account's deletion cascading
-- to its links lands here too.
CREATE TRIGGER short_links_delete_clicks AFTER DELETE ON short_links
BEGIN
  DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = old.id);
  DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = old.id;
  DELETE FROM link_clicks WHERE link_id = old.id;
END;

-- threadlink: foreign_keys=off
-- A short code unique per tracker, not across both (issue 23: the same code on two Shlink
-- domains, imported into the Link Tracker and the brand tracker). SQLite cannot drop a column's
-- UNIQUE: the table is rebuilt (https://sqlite.org/lang_altertable.html, "other kinds of table
-- schema changes"). The runner applies this one with foreign_keys off (the directive above): with
-- them on, dropping the old table would first delete every row and cascade to every link's
-- clicks, tags, roll-ups and public stats page. The ids are kept, so those rows and the search
-- index (external content, rowid = id) stay valid; the runner checks every reference before the
-- commit. The rebuild's triggers and indexes are those of migrations 0003, 0008, 0013 and 0017.
CREATE TABLE short_links_next (
  id INTEGER PRIMARY KEY,
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  tracker TEXT NOT NULL DEFAULT 'main' CHECK (tracker IN ('main', 'brand')),
  short_code TEXT NOT NULL,
  original_url TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  is_system INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  expires_at TEXT,
  external_id TEXT,
  imported_clicks INTEGER,
  smart TEXT,
  clicks_reset INTEGER NOT NULL DEFAULT 0
);
INSERT INTO short_links_next (id, user_id, tracker, short_code, original_url, title, description, active, is_system, created_at, updated_at, expires_at, external_id, imported_clicks, smart, clicks_reset)
  SELECT id, user_id, tracker, short_code, original_url, title, description, active, is_system, created_at, updated_at, expires_at, external_id, imported_clicks, smart, clicks_reset FROM short_links;
DROP TABLE short_links;
ALTER TABLE short_links_next RENAME TO short_links;
-- The code first: a redirect's miss and the lookup by code ask by code alone.
CREATE UNIQUE INDEX short_links_code ON short_links(short_code, tracker);
CREATE INDEX short_links_user_id ON short_links(user_id, tracker, id);
CREATE INDEX short_links_user_title ON short_links(user_id, tracker, title);
CREATE INDEX short_links_user_code ON short_links(user_id, tracker, short_code);
CREATE UNIQUE INDEX short_links_external_id ON short_links(user_id, external_id) WHERE external_id IS NOT NULL;
CREATE TRIGGER short_links_click_count AFTER INSERT ON short_links
BEGIN
  INSERT INTO link_click_counts (link_id, clicks) VALUES (new.id, 0);
END;
CREATE TRIGGER short_links_delete_clicks AFTER DELETE ON short_links
BEGIN
  DELETE FROM link_analytics WHERE id IN (SELECT click_id FROM link_clicks WHERE link_id = old.id);
  DELETE FROM link_analytics WHERE id > (SELECT folded FROM click_fold) AND link_id = old.id;
  DELETE FROM link_clicks WHERE link_id = old.id;
END;
CREATE TRIGGER link_totals_insert AFTER INSERT ON short_links WHEN new.user_id IS NOT NULL BEGIN
  INSERT INTO link_totals (user_id, tracker, links) VALUES (new.user_id, new.tracker, 1)
    ON CONFLICT (user_id, tracker) DO UPDATE SET links = links + 1;
END;
CREATE TRIGGER link_totals_delete AFTER DELETE ON short_links WHEN old.user_id IS NOT NULL BEGIN
  UPDATE link_totals SET links = links - 1 WHERE user_id = old.user_id AND tracker = old.tracker;
END;
CREATE TRIGGER short_links_search_insert AFTER INSERT ON short_links BEGIN
  INSERT INTO short_links_search (rowid, title, original_url, description, short_code)
    VALUES (new.id, new.title, new.original_url, new.description, new.short_code);
END;
CREATE TRIGGER short_links_search_delete AFTER DELETE ON short_links BEGIN
  INSERT INTO short_links_search (short_links_search, rowid, title, original_url, description, short_code)
    VALUES ('delete', old.id, old.title, old.original_url, old.description, old.short_code);
END;
CREATE TRIGGER short_links_search_update AFTER UPDATE OF title, original_url, description, short_code ON short_links BEGIN
  INSERT INTO short_links_search (short_links_search, rowid, title, original_url, description, short_code)
    VALUES ('delete', old.id, old.title, old.original_url, old.description, old.short_code);
  INSERT INTO short_links_search (rowid, title, original_url, description, short_code)
    VALUES (new.id, new.title, new.original_url, new.description, new.short_code);
END;

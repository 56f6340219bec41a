-- Lists at any size (issue 21): a list page is an index range, its total a stored count, and
-- a search an index lookup, at a million links as at ten (docs/decisions.md, "lists").

-- Per user and tracker, how many links: the list's total without counting a million index
-- entries each page. Kept by triggers, so every writer (routes, bulk, import, the CLI,
-- migrate-data) keeps it exact without knowing of it; the root link (no user) is not counted.
CREATE TABLE link_totals (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tracker TEXT NOT NULL,
  links INTEGER NOT NULL,
  PRIMARY KEY (user_id, tracker)
) WITHOUT ROWID;
INSERT INTO link_totals (user_id, tracker, links)
  SELECT user_id, tracker, COUNT(*) FROM short_links WHERE user_id IS NOT NULL GROUP BY user_id, tracker;
CREATE TRIGGER link_totals_insert AFTER INSERT ON short_links WHEN new.user_id IS NOT NULL BEGIN
  INSERT INTO link_totals (user_id, tracker, links) VALUES (new.user_id, new.tracker, 1)
    ON CONFLICT (user_id, tracker) DO UPDATE SET links = links + 1;
END;
CREATE TRIGGER link_totals_delete AFTER DELETE ON short_links WHEN old.user_id IS NOT NULL BEGIN
  UPDATE link_totals SET links = links - 1 WHERE user_id = old.user_id AND tracker = old.tracker;
END;

-- A list's orders: newest/oldest is creation order, the id (the search index returns its
-- matches in that order too, so a search pages without sorting them); title and code (unique:
-- no tie-breaker) have theirs. The rowid ends each index, so ties are broken by id.
CREATE INDEX short_links_user_id ON short_links(user_id, tracker, id);
DROP INDEX short_links_user;
CREATE INDEX short_links_user_title ON short_links(user_id, tracker, title);
CREATE INDEX short_links_user_code ON short_links(user_id, tracker, short_code);

-- Search: the words of title, destination, description and code, each found by its start
-- ("spring" finds "Spring sale" and spring-sale.example). The index holds no copy of the
-- text (external content); triggers keep it in step with short_links.
CREATE VIRTUAL TABLE short_links_search USING fts5(
  title, original_url, description, short_code,
  content = 'short_links', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 0'
);
INSERT INTO short_links_search (short_links_search) VALUES ('rebuild');
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

-- A topic's titles newest first and the notifications newest first, by keyset.
CREATE INDEX titles_topic_created ON titles(topic_id, created_at);

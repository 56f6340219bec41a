-- Lists at any size (issue 21), the twin of migrations/0013_lists.sql: a list page is an index
-- range, its total a stored count, and a search an index lookup (docs/decisions.md, "lists").

-- Per user and tracker, how many links, kept by triggers (the root link, no user, is not counted).
CREATE TABLE link_totals (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tracker text COLLATE "C" NOT NULL,
  links integer NOT NULL,
  PRIMARY KEY (user_id, tracker)
);
INSERT INTO link_totals (user_id, tracker, links)
  SELECT user_id, tracker, COUNT(*) FROM short_links WHERE user_id IS NOT NULL GROUP BY user_id, tracker;
-- Per statement, from its transition table: a bulk INSERT of 1,000 links is one upsert of the
-- count row, not 1,000 updates of it (each a new row version).
CREATE FUNCTION link_totals_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO link_totals (user_id, tracker, links)
    SELECT user_id, tracker, COUNT(*) FROM added WHERE user_id IS NOT NULL GROUP BY user_id, tracker
    ON CONFLICT (user_id, tracker) DO UPDATE SET links = link_totals.links + excluded.links;
  RETURN NULL;
END $$;
CREATE FUNCTION link_totals_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE link_totals t SET links = t.links - gone.n
    FROM (SELECT user_id, tracker, COUNT(*) AS n FROM removed WHERE user_id IS NOT NULL GROUP BY user_id, tracker) AS gone
    WHERE t.user_id = gone.user_id AND t.tracker = gone.tracker;
  RETURN NULL;
END $$;
CREATE TRIGGER link_totals_insert AFTER INSERT ON short_links
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION link_totals_add();
CREATE TRIGGER link_totals_delete AFTER DELETE ON short_links
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION link_totals_remove();

-- Newest/oldest is creation order, the id; title (in byte order, as SQLite sorts it, so both
-- backends page alike) with the id as tie-breaker (PostgreSQL has no rowid to lean on).
CREATE INDEX short_links_user_id ON short_links (user_id, tracker, id);
DROP INDEX short_links_user;
CREATE INDEX short_links_user_title ON short_links (user_id, tracker, title COLLATE "C", id);
CREATE INDEX short_links_user_code ON short_links (user_id, tracker, short_code COLLATE "C");

-- Search: the words of title, destination, description and code, each found by its start.
-- Punctuation is made a space first so a URL splits into words as SQLite's tokenizer splits
-- it (PostgreSQL's parser would keep a URL or a host whole). src/links/store.ts repeats this
-- expression word for word: the planner uses the index only for the same expression.
CREATE INDEX short_links_search ON short_links USING gin (
  to_tsvector('simple'::regconfig, regexp_replace(lower(title || ' ' || original_url || ' ' || COALESCE(description, '') || ' ' || short_code), '[^[:alnum:]]+', ' ', 'g'))
);

CREATE INDEX titles_topic_created ON titles (topic_id, created_at, id);
CREATE INDEX notifications_user_created ON notifications (user_id, created_at, id);
DROP INDEX notifications_user;

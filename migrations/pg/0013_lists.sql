-- Lists at any size (issue 21), the twin of migrations/0013_lists.sql: a list page is an index
-- range, its total a stored count, and a search an index lookup (docs/decisions.md, "lists").

-- Per user and tracker, how many links, kept by a trigger (the root link, no user, is not counted).
CREATE TABLE link_totals (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  tracker text COLLATE "C" NOT NULL,
  links integer NOT NULL,
  PRIMARY KEY (user_id, tracker)
);
INSERT INTO link_totals (user_id, tracker, links)
  SELECT user_id, tracker, COUNT(*) FROM short_links WHERE user_id IS NOT NULL GROUP BY user_id, tracker;
CREATE FUNCTION link_totals_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.user_id IS NOT NULL THEN
      INSERT INTO link_totals (user_id, tracker, links) VALUES (NEW.user_id, NEW.tracker, 1)
        ON CONFLICT (user_id, tracker) DO UPDATE SET links = link_totals.links + 1;
    END IF;
  ELSIF OLD.user_id IS NOT NULL THEN
    UPDATE link_totals SET links = links - 1 WHERE user_id = OLD.user_id AND tracker = OLD.tracker;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER link_totals_count AFTER INSERT OR DELETE ON short_links
  FOR EACH ROW EXECUTE FUNCTION link_totals_count();

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

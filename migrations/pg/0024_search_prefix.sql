-- Search at a million links (H-search), the twin of migrations/0024_search_prefix.sql: the words
-- a link is searched by become a stored column, and the GIN index is built on it. Checking one
-- row then reads the column instead of running regexp_replace and to_tsvector, so walking the
-- list newest first and testing each row finds a common word's first page and its capped count
-- in a few ms, and the planner has the column's word statistics to choose between that walk and
-- the index (docs/decisions.md, "Search at a million links"). The expression is 0013's, word for
-- word, so a link is found by the same words as before.
DROP INDEX short_links_search;
ALTER TABLE short_links ADD COLUMN search_words tsvector GENERATED ALWAYS AS (
  to_tsvector('simple'::regconfig, regexp_replace(lower(title || ' ' || original_url || ' ' || COALESCE(description, '') || ' ' || short_code), '[^[:alnum:]]+', ' ', 'g'))
) STORED;
CREATE INDEX short_links_search ON short_links USING gin (search_words);
ANALYZE short_links;

-- Search at a million links (H-search): a word's beginning of 1 to 8 characters is one doclist
-- of its own. Without it FTS5 merged the doclists of every word a prefix starts before the first
-- row (75 ms for "example"* in all of 1M links, 96-162 ms a page); with it the prefix streams in
-- id order like a whole word (under 2 ms a page). Longer prefixes still merge (rarely broad).
-- Costs: the index grows 74 -> 326 MB at 1M links, a link's insert ~2.6x (docs/decisions.md,
-- "Search at a million links"). The table is rebuilt from short_links; its triggers
-- (migrations/0013_lists.sql) name it, so they keep it in step as before.
DROP TABLE short_links_search;
CREATE VIRTUAL TABLE short_links_search USING fts5(
  title, original_url, description, short_code,
  content = 'short_links', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 0',
  prefix = '1 2 3 4 5 6 7 8'
);
INSERT INTO short_links_search (short_links_search) VALUES ('rebuild');

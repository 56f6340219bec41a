-- Searched list pages at a million links (issue 21): a search's total counts its matches up to
-- TOTAL_CAP (src/links/store.ts), and each match found in the FTS5 index is checked for its
-- owner and tracker. Read from the table, a word in 1 of 1,000 links touched a thousand table
-- pages for the count (13-14 ms warm at 1M links); from this narrow covering index (17 MB at
-- 1M links), which the reader connection's 32 MB page cache holds, ~3 ms once warm
-- (docs/performance.md, "Lead, session 8"). ~20 bytes a link.
CREATE INDEX short_links_owner_by_id ON short_links(id, user_id, tracker);

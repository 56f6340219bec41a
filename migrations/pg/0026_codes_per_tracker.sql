-- A short code unique per tracker, not across both (issue 23: the same code on two Shlink
-- domains, imported into the Link Tracker and the brand tracker); SQLite's 0026 rebuilds its
-- table for the same. The code first: a redirect's miss and the lookup by code ask by code alone.
ALTER TABLE short_links DROP CONSTRAINT short_links_short_code_key;
CREATE UNIQUE INDEX short_links_code ON short_links (short_code, tracker);

-- The redirect map reads every link at start-up (src/links/service.ts loadAll). Its pages take
-- the columns of a plain link only: a smart link's settings, reset count and click count cost
-- PostgreSQL ~0.5 s more of the million-link read (docs/performance.md, lead session 11). Smart
-- links are read apart, by this index of the few rows that have settings.
CREATE INDEX short_links_smart ON short_links (id) WHERE smart IS NOT NULL;

-- Cheaper click writes (docs/performance.md, "Click writer"). Each index a click row joins costs
-- the writer one page it must rewrite; with clicks spread over many links that page is a random
-- one, so the indexes below are chosen to be small or to grow only at their end.

-- A link's clicks in capture order: the rowid already is that order (clicks are written in the
-- order they were captured), so (link_id) alone — stored as (link_id, rowid) — replaces
-- (link_id, timestamp) at a third of the size.
DROP INDEX link_analytics_link_time;
CREATE INDEX link_analytics_link ON link_analytics(link_id);

-- Visit numbers: a visitor's earlier clicks on a link. Visitor ids now begin with the time they
-- were minted, so a new visitor's entry lands at the end of this index instead of on a random page.
DROP INDEX link_analytics_link_visitor;
CREATE INDEX link_analytics_visitor ON link_analytics(visitor_id, link_id);

-- Click counts live in a narrow table of their own: a batch of clicks over many links then
-- rewrites a few hundred small pages instead of a page of short_links per link (each count
-- update rewrote a whole link row's page). Every link has its row from birth (the trigger), so
-- the writer's UPDATE alone tells it whether the link still exists: no short_links read per click.
CREATE TABLE link_click_counts (
  link_id INTEGER PRIMARY KEY REFERENCES short_links(id) ON DELETE CASCADE,
  clicks INTEGER NOT NULL
);
INSERT INTO link_click_counts (link_id, clicks) SELECT id, click_count FROM short_links;
ALTER TABLE short_links DROP COLUMN click_count;
CREATE TRIGGER short_links_click_count AFTER INSERT ON short_links
BEGIN
  INSERT INTO link_click_counts (link_id, clicks) VALUES (new.id, 0);
END;

-- Roll-ups now mark the last folded click by its id alone (a link's ids follow capture order).
DELETE FROM link_rollups WHERE dim = 'summary' AND value = 'mark_ms';

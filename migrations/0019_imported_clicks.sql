-- Faithful imports (issue 23): the visits a link had in the tool it was imported from (Shlink's
-- visits, YOURLS's clicks), kept apart from the clicks counted here. NULL: not imported, or the
-- source gave no count.
ALTER TABLE short_links ADD COLUMN imported_clicks INTEGER;

-- The twin of migrations/0023_clicks_reset.sql (the comments there).
ALTER TABLE short_links ADD COLUMN clicks_reset integer NOT NULL DEFAULT 0;

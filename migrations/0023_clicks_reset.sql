-- How many times a link's clicks were reset (issue 24). A reset clears the link's counts, but
-- another instance's in-memory click-limit count only ever grows (it keeps the larger of its
-- own and the database's, so its unwritten clicks are never lost): the bumped number, read with
-- the row by every instance's follower, tells it to start again from the database's count.
ALTER TABLE short_links ADD COLUMN clicks_reset INTEGER NOT NULL DEFAULT 0;

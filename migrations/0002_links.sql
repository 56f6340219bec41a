-- Short links, part 2: the brand tracker's system root link and per-link analytics rollups.

-- The root link (code 'root') answers GET / on BRAND_DOMAIN. Its destination comes from
-- ROOT_REDIRECT_URL, which a migration cannot read: the app writes it at every start.
INSERT OR IGNORE INTO short_links (user_id, tracker, short_code, original_url, title, description, active, is_system, click_count, created_at, updated_at)
VALUES (NULL, 'brand', 'root', 'about:blank', 'Root Domain Redirect', NULL, 1, 1, 0, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

-- Counts per link and dimension, folded in from new clicks when a link's analytics are read,
-- so the dialog reads a few hundred rows instead of grouping every click (1,000,000 clicks
-- must answer in under 100 ms) and the redirect's writer only inserts click rows.
-- dim: country | city | browser | device | os | referrer | day ('YYYY-MM-DD', UTC)
--      | visitor (value = visitor id; count = that visitor's clicks: the visit number)
--      | summary (value 'unique' = distinct non-bot visitors; 'mark_ms'/'mark_id' = the last
--        click folded in)
CREATE TABLE link_rollups (
  link_id INTEGER NOT NULL REFERENCES short_links(id) ON DELETE CASCADE,
  dim TEXT NOT NULL,
  value TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (link_id, dim, value)
) WITHOUT ROWID;

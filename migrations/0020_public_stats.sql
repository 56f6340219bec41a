-- Public stats pages (issue 26): a link's owner may publish its stats at /public/stats/TOKEN.
-- One row per published link; revoking deletes it, publishing again makes a new token. The
-- token is kept as given (the owner copies the address again later); it opens one link's
-- aggregate stats and nothing else.
CREATE TABLE public_stats (
  link_id INTEGER PRIMARY KEY REFERENCES short_links(id) ON DELETE CASCADE,
  token TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);

-- Twin of migrations/0017_public_stats.sql: a link's published stats page and its token.
CREATE TABLE public_stats (
  link_id integer PRIMARY KEY REFERENCES short_links(id) ON DELETE CASCADE,
  token text COLLATE "C" NOT NULL UNIQUE,
  created_at iso_time NOT NULL
);

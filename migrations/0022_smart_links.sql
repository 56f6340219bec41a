-- Smart links (issue 24). A link's settings (password hash and version, click limit and
-- fallback, rules, split) are one JSON value on its row, NULL for a plain link: the redirect map
-- reads them with the row (and, on PostgreSQL, every instance's follower with every change of
-- the row), so a plain link costs nothing more and a rule change travels like a new destination.
ALTER TABLE short_links ADD COLUMN smart TEXT;
-- Which rule or split destination sent a click ('rule:2', 'variant:1', 'fallback'); NULL for a
-- plain link's click. The roll-ups tally it under dim 'route'.
ALTER TABLE link_analytics ADD COLUMN route TEXT;
-- A protected link's password page views and unlocks, per UTC day: counted apart from clicks.
CREATE TABLE link_gate_counts (
  link_id INTEGER NOT NULL REFERENCES short_links(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  unlocks INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (link_id, day)
);
-- A user's saved UTM parameter sets for the create and edit dialogs.
CREATE TABLE utm_templates (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  medium TEXT NOT NULL,
  campaign TEXT NOT NULL,
  term TEXT NOT NULL,
  content TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, name)
);
-- Secrets every instance must share (the unlock cookies' HMAC key when LINK_COOKIE_SECRET is
-- not set): the first instance to start writes one, the others read it.
CREATE TABLE instance_secrets (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Threadlink schema, version 1. Forward-only: never edit once landed; add 0002_… instead.
-- Timestamps are ISO-8601 UTC text ('2026-11-22T06:32:51.123Z') everywhere: they sort as text.

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  subscription_type TEXT NOT NULL DEFAULT 'free' CHECK (subscription_type IN ('free', 'premium')),
  subscription_expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- id is the SHA-256 of the cookie token: a stolen database file yields no usable sessions.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE topics (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  emoji TEXT,
  link_slug TEXT NOT NULL,
  phone_number TEXT NOT NULL UNIQUE,
  sort_order INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  access_type TEXT NOT NULL DEFAULT 'personal' CHECK (access_type IN ('personal', 'public', 'private')),
  click_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (user_id, link_slug)
);

-- Every slug a topic has ever had, so renamed topics keep their old links working.
CREATE TABLE topic_slugs (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, slug)
);
CREATE INDEX topic_slugs_topic ON topic_slugs(topic_id);

-- code_hash is the SHA-256 of the invite code; the code itself is shown once, to its creator.
CREATE TABLE invites (
  code_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  used_at TEXT
);
CREATE INDEX invites_user ON invites(user_id);

-- member_id accepted an invite from owner_id and so sees owner_id's shared topics.
CREATE TABLE shares (
  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  member_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (owner_id, member_id)
);
CREATE INDEX shares_member ON shares(member_id);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  link TEXT,
  dedupe_key TEXT,
  read_at TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, dedupe_key)
);
CREATE INDEX notifications_user ON notifications(user_id, created_at);

CREATE TABLE titles (
  id INTEGER PRIMARY KEY,
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  original_name TEXT NOT NULL,
  display_name TEXT,
  key_phrase TEXT,
  version INTEGER NOT NULL,
  notes TEXT NOT NULL DEFAULT '',
  sort_order INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Two concurrent "new message" calls can never produce the same version number.
  UNIQUE (topic_id, name, version)
);

-- tracker: 'main' (/link-tracker) or 'brand' (/pic-drift-link-tracker). Codes are unique across both.
-- user_id is NULL only for system links (the brand root link).
CREATE TABLE short_links (
  id INTEGER PRIMARY KEY,
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  tracker TEXT NOT NULL DEFAULT 'main' CHECK (tracker IN ('main', 'brand')),
  short_code TEXT NOT NULL UNIQUE,
  original_url TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  is_system INTEGER NOT NULL DEFAULT 0,
  click_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  expires_at TEXT
);
CREATE INDEX short_links_user ON short_links(user_id, tracker, created_at);

CREATE TABLE link_analytics (
  id INTEGER PRIMARY KEY,
  link_id INTEGER NOT NULL REFERENCES short_links(id) ON DELETE CASCADE,
  timestamp TEXT NOT NULL,
  referrer TEXT,
  user_agent TEXT,
  ip TEXT,
  country TEXT,
  city TEXT,
  device_type TEXT,
  browser TEXT,
  os TEXT,
  visitor_id TEXT,
  is_bot INTEGER NOT NULL DEFAULT 0,
  metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX link_analytics_link_time ON link_analytics(link_id, timestamp);
CREATE INDEX link_analytics_link_visitor ON link_analytics(link_id, visitor_id);

-- API keys (issue 14): a user's keys for scripts. Only a hash of the key is kept; the key is
-- shown once, at creation. Revoking deletes the row, so the very next request fails.
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  -- 'tl_' and the first 8 characters of the secret: enough to tell keys apart in a list.
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  scope TEXT NOT NULL CHECK (scope IN ('read', 'read-write')),
  only_area TEXT CHECK (only_area IN ('links', 'topics')),
  created_at TEXT NOT NULL,
  last_used_at TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id, created_at);

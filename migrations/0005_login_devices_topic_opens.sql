-- Browsers that have signed in to an account (the OWASP "device cookie"): a sign-in attempt
-- that presents one of these tokens for that account is limited per device, not by the
-- account-wide lockout, so an attacker hammering the account cannot lock its owner out.
-- Only the SHA-256 of the token is stored. One browser keeps one token for every account it
-- signs in to, hence the pair as the key.
CREATE TABLE login_devices (
  token_hash TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  last_used_at TEXT NOT NULL,
  PRIMARY KEY (token_hash, user_id)
) WITHOUT ROWID;
CREATE INDEX login_devices_by_user ON login_devices(user_id, last_used_at);

-- Topic opens count once per viewer per topic per UTC day (day = 'YYYY-MM-DD'): the first
-- INSERT OR IGNORE of the day counts, repeats change nothing. Rows of past days are swept.
CREATE TABLE topic_opens (
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  viewer_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  PRIMARY KEY (topic_id, viewer_id, day)
) WITHOUT ROWID;
CREATE INDEX topic_opens_by_day ON topic_opens(day);

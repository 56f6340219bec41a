-- Sign-in, sign-up and invite attempt limits (src/http/rateLimit.ts LIMITS) counted in the
-- database, so every instance sharing it shares the counts and a restart keeps them. One row
-- per limit and subject: `key` is sha256 of "limit name:subject" (an account name, an address,
-- a device), so no name or address is written down; `attempts` taken in the window that ends at
-- `window_ends_at` (ISO text, compared as text like every timestamp here). Rows of windows that
-- have ended are swept; a take compares the times itself, so an unswept row is never counted.
CREATE TABLE attempt_counts (
  key TEXT PRIMARY KEY,
  attempts INTEGER NOT NULL CHECK (attempts >= 0),
  window_ends_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX attempt_counts_by_end ON attempt_counts(window_ends_at);

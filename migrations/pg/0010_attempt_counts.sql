-- Twin of migrations/0010_attempt_counts.sql: sign-in, sign-up and invite attempts counted in
-- the database, shared by every instance. `key` is sha256 (hex) of "limit name:subject".
CREATE TABLE attempt_counts (
  key text COLLATE "C" PRIMARY KEY,
  attempts integer NOT NULL CHECK (attempts >= 0),
  window_ends_at iso_time NOT NULL
);
CREATE INDEX attempt_counts_by_end ON attempt_counts(window_ends_at);

-- A clicks.recorded delivery's body, kept apart from its delivery row (issue 26, H-hooks). The
-- body carries up to a thousand links' summaries (~100 KB) and is the same for every endpoint of
-- an owner that watches all its links; the delivery row is rewritten twice per attempt (its lease,
-- then its outcome), and SQLite rewrites a row whole: a body inside it was copied on every write,
-- on the request thread. So the click writer stores each chunk's body once here, and the
-- deliveries point at it (`body` left empty). Other event types keep their small body inline.
CREATE TABLE webhook_bodies (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- The endpoint a body was gathered for when it watches only some links; NULL: shared by the
  -- owner's endpoints that watch every link.
  webhook_id INTEGER,
  -- The first event of the chunk: the delivery's id, and how the fan-out finds its batch's bodies.
  first_event_id INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_bodies_event ON webhook_bodies (first_event_id);
-- No foreign key (a body outlives none of its deliveries: retention removes it once none points at it).
ALTER TABLE webhook_deliveries ADD COLUMN body_id INTEGER;
CREATE INDEX webhook_deliveries_body ON webhook_deliveries (body_id) WHERE body_id IS NOT NULL;

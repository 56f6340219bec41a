-- One event log (issue 26): "something happened" is written once, in the same transaction as
-- the change (src/events/store.ts); notifications, webhooks and live updates read it. AUTOINCREMENT
-- so an id is never given twice, even after the newest rows age out: a stream's Last-Event-ID
-- and a delivery's event id stay unambiguous.
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  -- Whose data it is (the link's or topic's owner); the stream and the webhooks filter on it.
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  -- No foreign key: link.deleted names a link that is gone.
  link_id INTEGER,
  topic_id INTEGER,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_user ON events (user_id, id);
CREATE INDEX events_created ON events (created_at);

CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- Kept as given: it signs every delivery, so it cannot be a one-way hash.
  secret TEXT NOT NULL,
  -- Event types wanted, comma-separated and wrapped in commas (',link.created,clicks.recorded,'),
  -- so one LIKE matches a type on both backends; link_ids the same, NULL meaning every link.
  events TEXT NOT NULL,
  link_ids TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  failures INTEGER NOT NULL DEFAULT 0,
  disabled_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_user ON webhooks (user_id);

-- The outbox: a delivery row is written with its event, so none is lost to a restart or a kill.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at TEXT NOT NULL,
  claimed_until TEXT,
  last_status INTEGER,
  last_latency_ms INTEGER,
  last_response TEXT,
  last_error TEXT,
  last_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, state, id);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_at);

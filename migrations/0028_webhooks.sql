-- Outbound events. A mind's writes describe their change to the after-write seam
-- (src/memory/outbox.ts), which appends an event row to the write's own batch when the mind has
-- webhooks: an acknowledged change always has its event, a failed write none. The queue delivers
-- each event to every webhook that wants its type, in order per mind, signed as Standard Webhooks.

-- The mind has (or had, until its last one went) webhooks: its writes wake their delivery. Read
-- with the mind's row, so a mind without webhooks costs its writes nothing after the answer.
ALTER TABLE minds ADD COLUMN webhooks INTEGER NOT NULL DEFAULT 0;

-- A mind's stream of events: present while the mind has a webhook (an event is written only then),
-- `last` the sequence of its latest event. A write's batch numbers its events after it and moves it.
CREATE TABLE event_streams (
  mind_id TEXT PRIMARY KEY REFERENCES minds(id) ON DELETE CASCADE,
  last INTEGER NOT NULL
);

-- One event per change, numbered per mind in the batch of the change; `data` is what changed (JSON).
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  sequence INTEGER NOT NULL,
  type TEXT NOT NULL,
  agent TEXT,
  occurred_at TEXT NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (mind_id, sequence)
);
CREATE INDEX events_occurred ON events (occurred_at);

-- A subscription: where a mind's events go, which types, and how far delivery has come.
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- JSON array of the event types it wants.
  types TEXT NOT NULL,
  -- The signing secret, encrypted (AES-GCM under WEBHOOK_ENCRYPTION_KEY); during a rotation's
  -- grace the previous one too, until previous_until.
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_until TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  disabled_at TEXT,
  -- The sequence of the last event handled (delivered, or not of a type it wants).
  cursor INTEGER NOT NULL,
  -- Failed attempts in a row at the event after the cursor, since when, and when to try again.
  failures INTEGER NOT NULL DEFAULT 0,
  failing_since TEXT,
  next_attempt_at TEXT NOT NULL,
  -- The delivery holding it (one at a time, so its events go out in order), until when.
  lease_id TEXT,
  lease_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX webhooks_mind ON webhooks (mind_id);

-- The delivery log: each attempt's outcome (the last 100 per webhook are kept).
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  mind_id TEXT NOT NULL,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  type TEXT NOT NULL,
  -- The receiver's HTTP status, or null when none came (refused address, timeout, network).
  status INTEGER,
  ok INTEGER NOT NULL,
  -- The first bytes of what went wrong; never the receiver's whole answer.
  error TEXT,
  duration_ms INTEGER NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX webhook_attempts_webhook ON webhook_attempts (webhook_id, id);
CREATE INDEX webhook_attempts_mind ON webhook_attempts (mind_id);

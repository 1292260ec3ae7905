-- Background work fans out through a queue: each cron run enqueues one message per unit of
-- due work (a namespace to consolidate, a session to extract, a mind's rows to embed, …).
-- In every database: the units of that database a run has enqueued, so an overlapping run does
-- not enqueue one again while its message is on its way; a lost message's mark expires and a
-- later run enqueues the unit again. The consumer removes the mark when the unit is done.
CREATE TABLE queued_units (
  -- The unit, as the message names it: its kind and ids separated by spaces.
  unit TEXT PRIMARY KEY,
  -- The producer run (or re-drive) whose message holds the unit.
  run_id TEXT NOT NULL,
  queued_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  -- Failed deliveries of the current message, and the code of the last failure (never its text).
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);

-- In the directory: messages that failed every retry, as an operator sees them (GET /jobs) and
-- sends back (POST /jobs/dead-letters/redrive). Ids and codes only, never SQL or user text.
CREATE TABLE dead_letters (
  unit TEXT NOT NULL,
  shard TEXT NOT NULL,
  kind TEXT NOT NULL,
  mind_id TEXT,
  namespace TEXT,
  error_code TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  -- How many times the unit has landed here since it was last sent back.
  deaths INTEGER NOT NULL DEFAULT 1,
  first_at TEXT NOT NULL,
  last_at TEXT NOT NULL,
  PRIMARY KEY (shard, unit)
);
CREATE INDEX dead_letters_last ON dead_letters(last_at);

-- The producers page through due units in id order: sessions by mind and id, rows waiting for a
-- vector by state and mind, so a page stops after its units instead of sorting every row.
CREATE INDEX sessions_mind_id ON sessions(mind_id, id);
CREATE INDEX embeddings_due_mind ON embeddings(state, mind_id, next_attempt_at);

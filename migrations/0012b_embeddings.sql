-- Which memories and notes have a vector in the deployment's vector index, and which wait for
-- one. A write marks its row pending; embedding happens off the request path and a failure is
-- retried later (attempts, next_attempt_at). No foreign key on purpose: when a row goes (delete,
-- retention, consolidation, erase) its record stays behind so its vector can be removed too.
CREATE TABLE embeddings (
  kind TEXT NOT NULL CHECK (kind IN ('memory', 'note')),
  row_id TEXT NOT NULL,
  mind_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  error TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (kind, row_id)
);
CREATE INDEX embeddings_pending ON embeddings(state, next_attempt_at);
CREATE INDEX embeddings_mind ON embeddings(mind_id);

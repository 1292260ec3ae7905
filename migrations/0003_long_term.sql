-- Long-term memory: hot notes, cold memory with its versions, consolidations, extractions,
-- the model usage ledger and the record of background job runs.

-- Append-only raw facts waiting to be folded into cold memory.
CREATE TABLE notes (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT NOT NULL DEFAULT 'default',
  -- No foreign key: a note outlives the session it was heard in.
  session_id TEXT,
  text TEXT NOT NULL,
  category_hint TEXT,
  source TEXT NOT NULL,
  confidence REAL NOT NULL,
  -- Set while a consolidation holds the note; the note is deleted when that consolidation lands.
  consolidation_id TEXT,
  created_at TEXT NOT NULL,
  -- Normalised, stemmed copy of text: what the search index holds.
  search_text TEXT NOT NULL DEFAULT '',
  -- Normalised text, for spotting a fact that is already waiting.
  text_key TEXT NOT NULL
);
CREATE INDEX notes_pending ON notes(mind_id, agent, consolidation_id, created_at);
CREATE INDEX notes_claimed ON notes(consolidation_id) WHERE consolidation_id IS NOT NULL;
CREATE INDEX notes_text_key ON notes(mind_id, agent, text_key);
CREATE INDEX notes_created ON notes(mind_id, created_at);

CREATE VIRTUAL TABLE notes_fts USING fts5(
  search_text,
  content = 'notes', content_rowid = 'rowid',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF search_text ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
  INSERT INTO notes_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;

-- One row per extraction that wrote notes, keyed by the cursor it started from, so a second
-- run from the same cursor writes nothing.
CREATE TABLE note_extractions (
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  -- '' when the extraction started at the beginning of the session.
  after_message_id TEXT NOT NULL,
  through_message_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  note_count INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (mind_id, session_id, after_message_id)
);
CREATE INDEX note_extractions_created ON note_extractions(created_at);

-- The consolidated document of a mind's agent namespace; version 0 means no row yet.
CREATE TABLE cold_memory (
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  text TEXT NOT NULL,
  version INTEGER NOT NULL,
  -- Unique per write: later statements of the same batch test it to know the write landed.
  write_id TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (mind_id, agent)
);

-- Every version ever written, for diff and rollback.
CREATE TABLE cold_versions (
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  version INTEGER NOT NULL,
  text TEXT NOT NULL,
  author TEXT NOT NULL,
  consolidation_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (mind_id, agent, version)
);

CREATE TABLE consolidations (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  -- running | done | failed | abandoned
  status TEXT NOT NULL,
  -- model | offline | client
  mode TEXT NOT NULL,
  note_count INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  from_version INTEGER,
  to_version INTEGER,
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX consolidations_mind ON consolidations(mind_id, agent, started_at);
CREATE INDEX consolidations_status ON consolidations(status, started_at);

-- The quota ledger: model calls and tokens per mind, UTC day and purpose.
CREATE TABLE llm_usage (
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  day TEXT NOT NULL,
  purpose TEXT NOT NULL,
  calls INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (mind_id, day, purpose)
);

CREATE TABLE job_runs (
  id TEXT PRIMARY KEY,
  job TEXT NOT NULL,
  cron TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  counts TEXT NOT NULL DEFAULT '{}',
  error TEXT
);
CREATE INDEX job_runs_started ON job_runs(started_at);
CREATE INDEX job_runs_job ON job_runs(job, started_at);

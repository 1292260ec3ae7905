-- Chats, their task sessions and each session's message history, with full-text search.

CREATE TABLE chats (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('telegram', 'api')),
  -- A Telegram chat id, or the channel name an API client chose; unique within a mind.
  external_id TEXT NOT NULL,
  active_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  UNIQUE (mind_id, kind, external_id)
);
CREATE INDEX chats_active_session ON chats(active_session_id) WHERE active_session_id IS NOT NULL;

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  -- '' when the task has no repository: NULLs would never collide in the UNIQUE below.
  repo_path TEXT NOT NULL DEFAULT '',
  task_name TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  -- Extraction has read every message up to this id (0: none yet).
  extracted_through_message_id INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_message_at TEXT,
  UNIQUE (chat_id, repo_path, task_name)
);
CREATE INDEX sessions_mind ON sessions(mind_id, created_at);

-- Ids only grow, so they order a session's history and serve as the extraction cursor.
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  mind_id TEXT NOT NULL,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  content TEXT NOT NULL,
  ephemeral INTEGER NOT NULL DEFAULT 0 CHECK (ephemeral IN (0, 1)),
  tool TEXT,
  created_at TEXT NOT NULL,
  -- Normalised, stemmed content for the search index; '' for ephemeral output, which is never searched.
  search_content TEXT NOT NULL DEFAULT ''
);
-- The whole history in order (UI channel, rotation at the cap, counts).
CREATE INDEX messages_session ON messages(session_id, id);
-- The LLM window: the last N non-ephemeral messages; also finds ephemeral rows to clear.
CREATE INDEX messages_window ON messages(session_id, ephemeral, id);

CREATE VIRTUAL TABLE messages_fts USING fts5(
  search_content,
  content = 'messages', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, search_content) VALUES (new.id, new.search_content);
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, search_content) VALUES ('delete', old.id, old.search_content);
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF search_content ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, search_content) VALUES ('delete', old.id, old.search_content);
  INSERT INTO messages_fts(rowid, search_content) VALUES (new.id, new.search_content);
END;

-- Accounts, minds, mind keys and structured memories with full-text search and history.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  telegram_user_id INTEGER UNIQUE,
  locale TEXT NOT NULL DEFAULT 'en',
  created_at TEXT NOT NULL
);

CREATE TABLE minds (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  locale TEXT NOT NULL DEFAULT 'en',
  retention_hours INTEGER,
  settings TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX minds_account ON minds(account_id, created_at);

CREATE TABLE mind_keys (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT,
  prefix TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX mind_keys_mind ON mind_keys(mind_id, created_at);

CREATE TABLE memories (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT NOT NULL DEFAULT 'default',
  category TEXT NOT NULL,
  key TEXT NOT NULL,
  content TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  priority TEXT NOT NULL DEFAULT 'normal',
  source TEXT NOT NULL,
  verified INTEGER NOT NULL DEFAULT 0,
  confidence REAL NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- Normalised, stemmed copies of key, content and tags: what the search index holds.
  search_key TEXT NOT NULL DEFAULT '',
  search_content TEXT NOT NULL DEFAULT '',
  search_tags TEXT NOT NULL DEFAULT '',
  UNIQUE (mind_id, agent, category, key)
);
CREATE INDEX memories_mind_updated ON memories(mind_id, updated_at);
CREATE INDEX memories_mind_expires ON memories(mind_id, expires_at) WHERE expires_at IS NOT NULL;

CREATE VIRTUAL TABLE memories_fts USING fts5(
  search_key, search_content, search_tags,
  content = 'memories', content_rowid = 'rowid',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, search_key, search_content, search_tags)
  VALUES (new.rowid, new.search_key, new.search_content, new.search_tags);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, search_key, search_content, search_tags)
  VALUES ('delete', old.rowid, old.search_key, old.search_content, old.search_tags);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_key, search_content, search_tags ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, search_key, search_content, search_tags)
  VALUES ('delete', old.rowid, old.search_key, old.search_content, old.search_tags);
  INSERT INTO memories_fts(rowid, search_key, search_content, search_tags)
  VALUES (new.rowid, new.search_key, new.search_content, new.search_tags);
END;

-- Append-only: one row per change of a memory. Kept when the memory is deleted.
CREATE TABLE memory_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  memory_id TEXT NOT NULL,
  action TEXT NOT NULL,
  actor TEXT NOT NULL,
  old_content TEXT,
  new_content TEXT,
  at TEXT NOT NULL
);
CREATE INDEX memory_history_memory ON memory_history(mind_id, memory_id, id);

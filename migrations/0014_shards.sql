-- Minds spread over D1 databases. The directory (the DB binding) holds every mind's row and
-- names the database that holds the mind's data in `shard` (a binding name: DB, SHARD_1, …).
-- Every database gets these migrations; a shard other than DB also holds a copy of the row of
-- each mind it serves (and a bare row of its account), which its foreign keys and its own
-- queries (settings, retention) read.
ALTER TABLE minds ADD COLUMN shard TEXT NOT NULL DEFAULT 'DB';
-- New minds go to the shard holding the fewest: counted from this index alone.
CREATE INDEX minds_shard ON minds(shard);

-- Whether this database takes writes to the mind's rows: 'open' where the mind lives;
-- 'moving' while its rows are copied to another database (every write refused);
-- 'erasing' while the old copy is deleted after a move (deletes and updates only);
-- 'elsewhere' in the directory's row of a mind whose data lives in another database.
-- The triggers below check it in the same transaction as the write, so a write that started
-- before a move began either lands before the copy reads it or is refused.
ALTER TABLE minds ADD COLUMN writes TEXT NOT NULL DEFAULT 'open';
ALTER TABLE minds ADD COLUMN moving_to TEXT;

CREATE TRIGGER memories_fence_insert BEFORE INSERT ON memories
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER memories_fence_update BEFORE UPDATE ON memories
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER memories_fence_delete BEFORE DELETE ON memories
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;

CREATE TRIGGER memory_history_fence_insert BEFORE INSERT ON memory_history
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER memory_history_fence_update BEFORE UPDATE ON memory_history
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER memory_history_fence_delete BEFORE DELETE ON memory_history
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER chats_fence_insert BEFORE INSERT ON chats
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER chats_fence_update BEFORE UPDATE ON chats
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER chats_fence_delete BEFORE DELETE ON chats
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER sessions_fence_insert BEFORE INSERT ON sessions
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER sessions_fence_update BEFORE UPDATE ON sessions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER sessions_fence_delete BEFORE DELETE ON sessions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER messages_fence_insert BEFORE INSERT ON messages
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER messages_fence_update BEFORE UPDATE ON messages
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER messages_fence_delete BEFORE DELETE ON messages
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER notes_fence_insert BEFORE INSERT ON notes
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER notes_fence_update BEFORE UPDATE ON notes
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER notes_fence_delete BEFORE DELETE ON notes
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER note_extractions_fence_insert BEFORE INSERT ON note_extractions
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER note_extractions_fence_update BEFORE UPDATE ON note_extractions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER note_extractions_fence_delete BEFORE DELETE ON note_extractions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_memory_fence_insert BEFORE INSERT ON cold_memory
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_memory_fence_update BEFORE UPDATE ON cold_memory
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_memory_fence_delete BEFORE DELETE ON cold_memory
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_versions_fence_insert BEFORE INSERT ON cold_versions
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_versions_fence_update BEFORE UPDATE ON cold_versions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER cold_versions_fence_delete BEFORE DELETE ON cold_versions
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER consolidations_fence_insert BEFORE INSERT ON consolidations
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER consolidations_fence_update BEFORE UPDATE ON consolidations
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER consolidations_fence_delete BEFORE DELETE ON consolidations
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER llm_usage_fence_insert BEFORE INSERT ON llm_usage
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER llm_usage_fence_update BEFORE UPDATE ON llm_usage
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER llm_usage_fence_delete BEFORE DELETE ON llm_usage
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER embeddings_fence_insert BEFORE INSERT ON embeddings
  WHEN coalesce((SELECT writes FROM minds WHERE id = new.mind_id), 'gone') <> 'open' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER embeddings_fence_update BEFORE UPDATE ON embeddings
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) IN ('moving', 'elsewhere') BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;
CREATE TRIGGER embeddings_fence_delete BEFORE DELETE ON embeddings
  WHEN (SELECT writes FROM minds WHERE id = old.mind_id) = 'moving' BEGIN SELECT RAISE(ABORT, 'mind_moving'); END;

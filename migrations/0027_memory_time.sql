-- A memory is a statement made at a time. Besides when it was stored (created_at, updated_at) it
-- keeps when it was stated (observed_at) and its validity: valid_from and, once a later
-- statement replaced it, valid_until and superseded_by (the id of the memory that replaced it).
-- A replaced statement stays a row of memories, so search, moves, exports and retention treat
-- it as any memory. Columns are added in place: a rebuild of memories to swap its inline
-- UNIQUE (mind_id, agent, category, key) for a partial index would copy every row in one
-- statement (measured locally: 4.6 s per 200,000 rows, near D1's 30 s limit at a million, the
-- shard locked meanwhile). The constraint stays, and a replaced row's stored key is its key,
-- '#' and its own id (src/memory/rows.ts): no key a writer may give holds '#', so the current
-- row alone holds the key itself. NULL in the new columns of rows written before means "as
-- created": observed_at and valid_from read as created_at, with no backfill of every row.
ALTER TABLE memories ADD COLUMN observed_at TEXT;
ALTER TABLE memories ADD COLUMN valid_from TEXT;
ALTER TABLE memories ADD COLUMN valid_until TEXT;
ALTER TABLE memories ADD COLUMN superseded_by TEXT;

-- A memory's past versions and what it replaced, found from it.
CREATE INDEX memories_superseded_by ON memories(mind_id, superseded_by) WHERE superseded_by IS NOT NULL;

-- Replaced statements are stored (their bytes count) but are not memories a quota counts:
-- max_memories bounds `memories - replaced`, the mind's current memories. `memories` itself
-- stays every row, as the full-text index counts them.
ALTER TABLE mind_usage ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER mind_usage_replaced_insert AFTER INSERT ON memories WHEN new.superseded_by IS NOT NULL BEGIN
  UPDATE mind_usage SET replaced = replaced + 1 WHERE mind_id = new.mind_id;
END;
CREATE TRIGGER mind_usage_replaced_delete AFTER DELETE ON memories WHEN old.superseded_by IS NOT NULL BEGIN
  UPDATE mind_usage SET replaced = replaced - 1 WHERE mind_id = old.mind_id;
END;
CREATE TRIGGER mind_usage_replaced_update AFTER UPDATE OF superseded_by ON memories
  WHEN (old.superseded_by IS NULL) <> (new.superseded_by IS NULL) BEGIN
  UPDATE mind_usage SET replaced = replaced + iif(new.superseded_by IS NULL, -1, 1) WHERE mind_id = new.mind_id;
END;

-- What each mind holds, kept exact by triggers, so a quota check is one row read whatever the
-- mind's size: memories, notes, and bytes of stored text (memory keys, contents and tags, note
-- texts, message contents, cold memory versions). Every write path (API, MCP, bot, import,
-- extraction, retention, cascades) moves it, because the database does.
CREATE TABLE mind_usage (
  mind_id TEXT PRIMARY KEY REFERENCES minds(id) ON DELETE CASCADE,
  memories INTEGER NOT NULL DEFAULT 0,
  notes INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0
);

INSERT INTO mind_usage (mind_id, memories, notes, bytes)
SELECT
  m.id,
  (SELECT count(*) FROM memories WHERE mind_id = m.id),
  (SELECT count(*) FROM notes WHERE mind_id = m.id),
  (SELECT coalesce(sum(length(CAST(key AS BLOB)) + length(CAST(content AS BLOB)) + length(CAST(tags AS BLOB))), 0) FROM memories WHERE mind_id = m.id)
    + (SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM notes WHERE mind_id = m.id)
    + (SELECT coalesce(sum(length(CAST(content AS BLOB))), 0) FROM messages WHERE mind_id = m.id)
    + (SELECT coalesce(sum(length(CAST(text AS BLOB))), 0) FROM cold_versions WHERE mind_id = m.id)
FROM minds m;

CREATE TRIGGER mind_usage_new_mind AFTER INSERT ON minds BEGIN
  INSERT OR IGNORE INTO mind_usage (mind_id) VALUES (new.id);
END;

CREATE TRIGGER mind_usage_memory_insert AFTER INSERT ON memories BEGIN
  UPDATE mind_usage SET memories = memories + 1,
    bytes = bytes + length(CAST(new.key AS BLOB)) + length(CAST(new.content AS BLOB)) + length(CAST(new.tags AS BLOB))
  WHERE mind_id = new.mind_id;
END;
CREATE TRIGGER mind_usage_memory_delete AFTER DELETE ON memories BEGIN
  UPDATE mind_usage SET memories = memories - 1,
    bytes = bytes - length(CAST(old.key AS BLOB)) - length(CAST(old.content AS BLOB)) - length(CAST(old.tags AS BLOB))
  WHERE mind_id = old.mind_id;
END;
CREATE TRIGGER mind_usage_memory_update AFTER UPDATE OF key, content, tags ON memories BEGIN
  UPDATE mind_usage SET
    bytes = bytes + length(CAST(new.key AS BLOB)) + length(CAST(new.content AS BLOB)) + length(CAST(new.tags AS BLOB))
      - length(CAST(old.key AS BLOB)) - length(CAST(old.content AS BLOB)) - length(CAST(old.tags AS BLOB))
  WHERE mind_id = new.mind_id;
END;

CREATE TRIGGER mind_usage_note_insert AFTER INSERT ON notes BEGIN
  UPDATE mind_usage SET notes = notes + 1, bytes = bytes + length(CAST(new.text AS BLOB)) WHERE mind_id = new.mind_id;
END;
CREATE TRIGGER mind_usage_note_delete AFTER DELETE ON notes BEGIN
  UPDATE mind_usage SET notes = notes - 1, bytes = bytes - length(CAST(old.text AS BLOB)) WHERE mind_id = old.mind_id;
END;
CREATE TRIGGER mind_usage_note_update AFTER UPDATE OF text ON notes BEGIN
  UPDATE mind_usage SET bytes = bytes + length(CAST(new.text AS BLOB)) - length(CAST(old.text AS BLOB)) WHERE mind_id = new.mind_id;
END;

CREATE TRIGGER mind_usage_message_insert AFTER INSERT ON messages BEGIN
  UPDATE mind_usage SET bytes = bytes + length(CAST(new.content AS BLOB)) WHERE mind_id = new.mind_id;
END;
CREATE TRIGGER mind_usage_message_delete AFTER DELETE ON messages BEGIN
  UPDATE mind_usage SET bytes = bytes - length(CAST(old.content AS BLOB)) WHERE mind_id = old.mind_id;
END;

CREATE TRIGGER mind_usage_cold_version_insert AFTER INSERT ON cold_versions BEGIN
  UPDATE mind_usage SET bytes = bytes + length(CAST(new.text AS BLOB)) WHERE mind_id = new.mind_id;
END;
CREATE TRIGGER mind_usage_cold_version_delete AFTER DELETE ON cold_versions BEGIN
  UPDATE mind_usage SET bytes = bytes - length(CAST(old.text AS BLOB)) WHERE mind_id = old.mind_id;
END;

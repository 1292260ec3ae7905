-- Where a memory or a note came from (the surrounding dialogue, a document's section, the
-- conversation's date): stored beside the content, never shown as it, and indexed at a lower
-- weight than the memory's own words. A session message is indexed with its neighbours the
-- same way. FTS5 tables cannot gain a column, so each index is dropped, created again with
-- the new column and rebuilt from its content table (the content tables keep every row).

ALTER TABLE memories ADD COLUMN context TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN search_context TEXT NOT NULL DEFAULT '';

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;

CREATE VIRTUAL TABLE memories_fts USING fts5(
  search_key, search_content, search_tags, search_context,
  content = 'memories', content_rowid = 'rowid',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, search_key, search_content, search_tags, search_context)
  VALUES (new.rowid, new.search_key, new.search_content, new.search_tags, new.search_context);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, search_key, search_content, search_tags, search_context)
  VALUES ('delete', old.rowid, old.search_key, old.search_content, old.search_tags, old.search_context);
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF search_key, search_content, search_tags, search_context ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, search_key, search_content, search_tags, search_context)
  VALUES ('delete', old.rowid, old.search_key, old.search_content, old.search_tags, old.search_context);
  INSERT INTO memories_fts(rowid, search_key, search_content, search_tags, search_context)
  VALUES (new.rowid, new.search_key, new.search_content, new.search_tags, new.search_context);
END;

INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');

ALTER TABLE notes ADD COLUMN context TEXT NOT NULL DEFAULT '';
ALTER TABLE notes ADD COLUMN search_context TEXT NOT NULL DEFAULT '';

DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;

CREATE VIRTUAL TABLE notes_fts USING fts5(
  search_text, search_context,
  content = 'notes', content_rowid = 'rowid',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, search_text, search_context) VALUES (new.rowid, new.search_text, new.search_context);
END;

CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, search_text, search_context)
  VALUES ('delete', old.rowid, old.search_text, old.search_context);
END;

CREATE TRIGGER notes_fts_update AFTER UPDATE OF search_text, search_context ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, search_text, search_context)
  VALUES ('delete', old.rowid, old.search_text, old.search_context);
  INSERT INTO notes_fts(rowid, search_text, search_context) VALUES (new.rowid, new.search_text, new.search_context);
END;

INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');

-- The index text of the session's neighbouring messages (the one before and the one after).
ALTER TABLE messages ADD COLUMN search_near TEXT NOT NULL DEFAULT '';
UPDATE messages SET search_near = trim(
  coalesce((SELECT p.search_content FROM messages p WHERE p.session_id = messages.session_id AND p.ephemeral = 0
    AND p.id < messages.id ORDER BY p.id DESC LIMIT 1), '') || ' ' ||
  coalesce((SELECT n.search_content FROM messages n WHERE n.session_id = messages.session_id AND n.ephemeral = 0
    AND n.id > messages.id ORDER BY n.id ASC LIMIT 1), '')
) WHERE ephemeral = 0;

DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE messages_fts;

CREATE VIRTUAL TABLE messages_fts USING fts5(
  search_content, search_near,
  content = 'messages', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, search_content, search_near) VALUES (new.id, new.search_content, new.search_near);
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, search_content, search_near)
  VALUES ('delete', old.id, old.search_content, old.search_near);
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF search_content, search_near ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, search_content, search_near)
  VALUES ('delete', old.id, old.search_content, old.search_near);
  INSERT INTO messages_fts(rowid, search_content, search_near) VALUES (new.id, new.search_content, new.search_near);
END;

INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');

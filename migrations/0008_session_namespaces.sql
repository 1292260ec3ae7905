-- Chats and sessions belong to an agent namespace, like memories and notes: a key scoped to
-- one namespace sees only its own. Columns are added in place (a table rebuild on D1 would
-- cascade-delete every session and message); existing rows go to the default namespace.
-- An API chat's name is unique per namespace: its stored external_id carries the namespace
-- ("<agent>\x1f<name>") for every namespace but the default, so UNIQUE (mind_id, kind,
-- external_id) keeps holding.
ALTER TABLE chats ADD COLUMN agent TEXT NOT NULL DEFAULT 'default';
ALTER TABLE sessions ADD COLUMN agent TEXT NOT NULL DEFAULT 'default';
CREATE INDEX sessions_mind_agent ON sessions(mind_id, agent);

-- A memory's history says which of its other fields a change touched, not only its content:
-- a JSON object of field → [before, after] (priority, tags, expiry, confidence, source,
-- verified). Null where nothing but the content changed, and on entries written before.
ALTER TABLE memory_history ADD COLUMN changes TEXT;

-- When a move switched the directory to the new shard. Every Worker isolate may still name the
-- old shard for a mind for DIRECTORY_TTL_MS after that (src/tenancy/directory-cache.ts): the old
-- copy stays closed to every write (writes = 'moving') until then, and only after it is the copy
-- opened to its own erasure. Null before the switch, and on moves that switched before this.
ALTER TABLE mind_moves ADD COLUMN switched_at TEXT;

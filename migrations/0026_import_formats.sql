-- An import may bring a peer's file (a mem0 export, a Letta Agent File) instead of edgemind's
-- archive: the request stores the file as it came, and the import's object converts it into
-- the archive's lines before checking them. Imports made before this held archives.
ALTER TABLE imports ADD COLUMN format TEXT NOT NULL DEFAULT 'archive';

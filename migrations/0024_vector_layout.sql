-- Where a row's vector was written: 1, the old layout (one Vectorize namespace per mind, which
-- stops at the index's 50,000 namespaces); 2, shared namespaces with the mind in metadata
-- (src/embeddings/vectorize-index.ts). Existing rows take 1 from the default, with no UPDATE
-- for the move fence to stop; the code writes 2, and the embeddings job moves the rest.
ALTER TABLE embeddings ADD COLUMN vector_layout INTEGER NOT NULL DEFAULT 1;
CREATE INDEX embeddings_old_layout ON embeddings(mind_id) WHERE state = 'done' AND vector_layout = 1;

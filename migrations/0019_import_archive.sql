-- An import's request only stores the archive, in parts of at most 1 MB in the order they
-- arrived; the import's Durable Object then checks it as a whole, stages its rows and drops
-- the parts (src/minds/import-archive.ts). Erasing the job erases its parts.
CREATE TABLE import_parts (
  job_id TEXT NOT NULL REFERENCES import_jobs(id) ON DELETE CASCADE,
  part INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (job_id, part)
);

-- The attempt at checking and staging an archive that owns the job's staged rows: a retry
-- takes the job over first, so rows staged by an earlier attempt still running never mix in.
ALTER TABLE import_jobs ADD COLUMN staged_by TEXT;

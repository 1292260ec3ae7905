-- An import is checked and staged by its request, then written in slices by the import's
-- Durable Object (src/minds/import-jobs.ts). Both tables live in the database that holds the
-- mind; erasing the mind erases its imports.
CREATE TABLE import_jobs (
  id TEXT PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  -- staging → queued → running → done; or → undoing → failed
  state TEXT NOT NULL,
  rows_total INTEGER NOT NULL DEFAULT 0,
  rows_written INTEGER NOT NULL DEFAULT 0,
  slices_total INTEGER NOT NULL DEFAULT 0,
  slices_written INTEGER NOT NULL DEFAULT 0,
  -- Rows per table the archive holds (JSON).
  counts TEXT NOT NULL DEFAULT '{}',
  -- The mind's locale, retention and settings before the import (JSON), restored if it fails.
  restore TEXT NOT NULL,
  error_code TEXT,
  error_message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX import_jobs_mind ON import_jobs (mind_id, created_at);

-- The rows an import still has to write, in write order, each with its fresh ids; a slice is
-- written, and its staged rows deleted, in one D1 batch.
CREATE TABLE import_rows (
  job_id TEXT NOT NULL REFERENCES import_jobs(id) ON DELETE CASCADE,
  slice INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (job_id, slice, seq)
);

-- A table that never holds a row: a slice's batch ends with an insert into it that selects a
-- row only when the job's progress is not the one the slice moved it to, so a slice written
-- twice (a retry racing the first attempt) fails whole.
CREATE TABLE import_guard (
  ok INTEGER NOT NULL CONSTRAINT import_slice_taken CHECK (ok = 1)
);

-- An archive import is an import, not a job ("job" names the scheduled jobs only): its table
-- and the columns that point at it say so. SQLite rewrites the foreign keys of import_rows and
-- import_parts to the renamed table and column.
ALTER TABLE import_jobs RENAME TO imports;
ALTER TABLE import_rows RENAME COLUMN job_id TO import_id;
ALTER TABLE import_parts RENAME COLUMN job_id TO import_id;
DROP INDEX import_jobs_mind;
CREATE INDEX imports_mind ON imports (mind_id, created_at);

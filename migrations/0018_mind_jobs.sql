-- A mind's move between shards runs as a background job, in bounded slices.
-- In the directory: one row per mind that is moving or last moved, with where the move stands.
CREATE TABLE mind_moves (
  mind_id TEXT PRIMARY KEY,
  from_shard TEXT NOT NULL,
  to_shard TEXT NOT NULL,
  -- freezing, preparing, copying, switching, erasing, undoing while it runs; done or abandoned after.
  state TEXT NOT NULL,
  -- Why the move was abandoned, or the last failure of a slice (a code and a safe message).
  error TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  finished_at TEXT
);

-- On the target shard: how far each table of the mind has been copied, by the source's rowid.
-- Written in the same batch as the rows it counts, so a copy interrupted anywhere resumes exactly.
CREATE TABLE mind_copy_cursors (
  mind_id TEXT NOT NULL,
  table_name TEXT NOT NULL,
  after_rowid INTEGER NOT NULL,
  done INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (mind_id, table_name)
);

-- Erasing a mind: the directory first marks it (it then answers as missing everywhere), its data
-- is erased on its shard, then the directory's row goes. The record stays as a tombstone, so an
-- erase asked again after a failure answers what was erased, and the retention job finishes any
-- erase left unfinished.
ALTER TABLE minds ADD COLUMN erasing_since TEXT;
CREATE TABLE mind_erasures (
  mind_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  shard TEXT NOT NULL,
  -- Rows of each kind the mind held when its erasure began (JSON).
  counts TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX mind_erasures_unfinished ON mind_erasures(started_at) WHERE finished_at IS NULL;

-- New minds go to the shard holding the fewest: counted here by triggers instead of a scan of
-- the directory on every creation. (On a shard, the copies of rows it serves keep a count too.)
CREATE TABLE shard_minds (
  shard TEXT PRIMARY KEY,
  minds INTEGER NOT NULL
);
INSERT INTO shard_minds (shard, minds) SELECT shard, count(*) FROM minds GROUP BY shard;
CREATE TRIGGER shard_minds_insert AFTER INSERT ON minds BEGIN
  INSERT INTO shard_minds (shard, minds) VALUES (new.shard, 1) ON CONFLICT (shard) DO UPDATE SET minds = minds + 1;
END;
CREATE TRIGGER shard_minds_delete AFTER DELETE ON minds BEGIN
  UPDATE shard_minds SET minds = minds - 1 WHERE shard = old.shard;
END;
CREATE TRIGGER shard_minds_update AFTER UPDATE OF shard ON minds WHEN new.shard <> old.shard BEGIN
  UPDATE shard_minds SET minds = minds - 1 WHERE shard = old.shard;
  INSERT INTO shard_minds (shard, minds) VALUES (new.shard, 1) ON CONFLICT (shard) DO UPDATE SET minds = minds + 1;
END;

-- A move left unfinished before moves ran as jobs resumes as one (posting the move again starts it).
INSERT INTO mind_moves (mind_id, from_shard, to_shard, state, started_at, updated_at)
  SELECT id, shard, moving_to, 'freezing', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  FROM minds WHERE moving_to IS NOT NULL;

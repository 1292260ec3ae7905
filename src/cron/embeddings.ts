import { everyShard } from "../db/client";
import type { Deps } from "../deps";
import { EMBED_BATCH, embedPending, markMissing, removeGoneVectors } from "../memory/semantic";
import type { JobCounts } from "../db/job-runs";

// Bounds of one hourly run: the rest waits for the next hour.
const REMOVE_ROUNDS = 5;
const BACKFILL_ROWS = 200;
const EMBED_ROUNDS = 10;

/**
 * Hourly, where recall by meaning is configured: removes the vectors of rows that went
 * (deletes, retention, consolidated notes, erased minds), backfills rows that never had one
 * in a bounded batch, and embeds what is due, failed writes' retries included.
 */
export async function runEmbeddingsJob(deps: Deps, counts: JobCounts): Promise<void> {
  if (!deps.semantic) {
    counts.skipped = "no embeddings configured";
    return;
  }
  const tally = { vectors_removed: 0, backfill_marked: 0, embedded: 0, failed: 0, postponed: 0 };
  Object.assign(counts, tally);
  // Every shard in turn, each within the same bounds.
  for (const shard of everyShard(deps)) {
    await runInShard({ ...deps, db: shard.db }, tally);
    Object.assign(counts, tally);
  }
}

async function runInShard(deps: Deps, counts: Record<"vectors_removed" | "backfill_marked" | "embedded" | "failed" | "postponed", number>) {
  for (let round = 0; round < REMOVE_ROUNDS; round++) {
    const removed = await removeGoneVectors(deps, null);
    counts.vectors_removed += removed;
    if (removed === 0) break;
  }
  counts.backfill_marked += await markMissing(deps, null, BACKFILL_ROWS);
  for (let round = 0; round < EMBED_ROUNDS; round++) {
    const done = await embedPending(deps, null, EMBED_BATCH);
    counts.embedded += done.embedded;
    counts.failed += done.failed;
    counts.postponed += done.postponed;
    if (done.embedded + done.failed + done.postponed < EMBED_BATCH) break;
  }
}

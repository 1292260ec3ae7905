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
  counts.vectors_removed = 0;
  for (let round = 0; round < REMOVE_ROUNDS; round++) {
    const removed = await removeGoneVectors(deps, null);
    counts.vectors_removed += removed;
    if (removed === 0) break;
  }
  counts.backfill_marked = await markMissing(deps, null, BACKFILL_ROWS);
  counts.embedded = 0;
  counts.failed = 0;
  counts.postponed = 0;
  for (let round = 0; round < EMBED_ROUNDS; round++) {
    const done = await embedPending(deps, null, EMBED_BATCH);
    counts.embedded += done.embedded;
    counts.failed += done.failed;
    counts.postponed += done.postponed;
    if (done.embedded + done.failed + done.postponed < EMBED_BATCH) break;
  }
}

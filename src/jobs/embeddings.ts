import { sql } from "drizzle-orm";
import type { Deps, InShard } from "../deps";
import { newId } from "../ids";
import { MOVE_BATCH, moveOldLayoutVectors } from "../memory/vector-layout";
import { EMBED_BATCH, embedPending, markMissing, removeGoneVectors } from "../memory/vectors";
import { idsAfter, type QueueJob, type UnitOutcome, type UnitSource } from "../queue/handlers";
import { produceSlice } from "../queue/produce";
import { jobMindContext } from "../tenancy/mind-context";

// What one message does at most; a unit with more left goes round again.
const EMBED_ROUNDS = 4;
const REMOVE_BATCH = 100;
const BACKFILL_ROWS = 200;

/** Minds with rows due for a vector (failed writes' retries included). */
const dueRows: UnitSource = {
  page(_shard, after, limit, now) {
    const [mindId] = idsAfter(after);
    const from = mindId === undefined ? sql`` : sql`and mind_id > ${mindId}`;
    return sql`select 'embed ' || mind_id as unit from embeddings
      where state = 'pending' and next_attempt_at <= ${now.toISOString()} ${from}
      group by mind_id order by mind_id limit ${limit}`;
  },
};

/**
 * Hourly, where recall by meaning is configured: every mind with rows due for a vector, one
 * message each; and on every database one message that removes the vectors of rows that went
 * and marks rows that never had one (backfill).
 */
export const embeddingsJob: QueueJob = {
  name: "embeddings",
  skipped: (deps) => (deps.semantic ? null : "no embeddings configured"),
  // dueRows first: the backfill below produces from it by its index.
  sources: [dueRows, { page: (_shard, after) => (after === null ? sql`select 'vectors' as unit` : null) }],
};

const inShard = (deps: Deps, shard: string): InShard => ({ ...deps, shard: deps.shards.db(shard) });

/** Embeds the mind's due rows (src/memory/vectors.ts); a failed row waits with its own backoff. */
export async function embedUnit(deps: Deps, unit: { mindId: string }, shard: string): Promise<UnitOutcome> {
  const counts = { embedded: 0, failed: 0, postponed: 0 };
  let full = false;
  // The mind (its daily budget) is read once for every round.
  const { mind } = await jobMindContext(deps, "embeddings", unit.mindId);
  for (let round = 0; round < EMBED_ROUNDS; round++) {
    const done = await embedPending(inShard(deps, shard), mind);
    counts.embedded += done.embedded;
    counts.failed += done.failed;
    counts.postponed += done.postponed;
    full = done.embedded + done.failed + done.postponed >= EMBED_BATCH;
    if (!full) break;
  }
  return { status: "done", counts, more: full };
}

/**
 * Removes vectors of rows that went, moves vectors still in one namespace per mind to the shared
 * ones, and marks rows without a vector, on one database.
 */
export async function vectorsUnit(deps: Deps, shard: string): Promise<UnitOutcome> {
  const at = inShard(deps, shard);
  const removed = await removeGoneVectors(at, null, REMOVE_BATCH);
  const { moved, reembed } = await moveOldLayoutVectors(at);
  const marked = await markMissing(at, null, BACKFILL_ROWS);
  // Rows just marked are embedded now, by messages of their minds, rather than an hour later.
  if (marked + reembed > 0) await produceSlice(deps, embeddingsJob, { shard, source: 0, after: null }, newId("run"), { pages: 0, enqueued: 0, already_queued: 0, continued: 0 });
  return {
    status: "done",
    counts: { vectors_removed: removed, vectors_moved: moved, vectors_reembedded: reembed, backfill_marked: marked },
    more: removed >= REMOVE_BATCH || moved + reembed >= MOVE_BATCH || marked >= BACKFILL_ROWS,
  };
}

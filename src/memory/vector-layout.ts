import { and, eq, inArray, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import { embeddings } from "../db/schema";
import type { InShard } from "../deps";
import { groupByMind, SHARED_LAYOUT } from "./vectors";

// Deployments from before shared namespaces hold each mind's vectors in a namespace of its own.
// The embeddings job moves them: it reads each vector back from the index and writes it again in
// the mind's bucket with the mind in metadata, with no model call. A vector the index no longer
// holds is embedded again. Until a mind's vectors have moved its searches use full text.

const OLD_LAYOUT = 1;
/** Rows a call settles: with their mind and the new values, within D1's 100 bound parameters a statement. */
export const MOVE_BATCH = 80;

/** Moves up to `limit` vectors of one database written in the old layout; answers how many rows it settled. */
export async function moveOldLayoutVectors(deps: Pick<InShard, "shard" | "clock" | "semantic">, limit = MOVE_BATCH): Promise<{ moved: number; reembed: number }> {
  const semantic = deps.semantic;
  const counts = { moved: 0, reembed: 0 };
  if (!semantic) return counts;
  // Minds being moved between databases wait: the move fence refuses their updates.
  const due = await deps.shard
    .select({ kind: embeddings.kind, rowId: embeddings.rowId, mindId: embeddings.mindId })
    .from(embeddings)
    .where(
      and(
        eq(embeddings.state, "done"),
        eq(embeddings.vectorLayout, OLD_LAYOUT),
        sql`exists (select 1 from minds m where m.id = ${embeddings.mindId} and m.writes = 'open')`,
      ),
    )
    .limit(limit);
  for (const [mindId, rows] of groupByMind(due)) {
    const held = new Set(await semantic.index.rewrite(mindId, rows.map((r) => r.rowId)));
    const moved = rows.filter((r) => held.has(r.rowId)).map((r) => r.rowId);
    const missing = rows.filter((r) => !held.has(r.rowId)).map((r) => r.rowId);
    const now = isoNow(deps.clock);
    if (moved.length > 0) {
      await deps.shard.update(embeddings).set({ vectorLayout: SHARED_LAYOUT, updatedAt: now })
        .where(and(eq(embeddings.mindId, mindId), inArray(embeddings.rowId, moved)));
    }
    if (missing.length > 0) {
      await deps.shard.update(embeddings).set({ state: "pending", attempts: 0, nextAttemptAt: now, error: null, updatedAt: now })
        .where(and(eq(embeddings.mindId, mindId), inArray(embeddings.rowId, missing)));
    }
    counts.moved += moved.length;
    counts.reembed += missing.length;
  }
  return counts;
}

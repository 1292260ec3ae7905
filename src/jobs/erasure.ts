import { sql } from "drizzle-orm";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { ERASURE_STALE_MS, finishInterruptedErasure } from "../portability/erase";
import { idsAfter, type UnitSource, type WorkOutcome } from "../queue/job";

/** In the directory: every mind whose erasure stopped halfway, one unit each (sent by the daily retention). */
export const stalledErasures: UnitSource = {
  page(shard, after, limit, now) {
    if (shard !== DIRECTORY) return null;
    const [mindId] = idsAfter(after);
    const staleBefore = new Date(now.getTime() - ERASURE_STALE_MS).toISOString();
    const from = mindId === undefined ? sql`` : sql`and mind_id > ${mindId}`;
    return sql`select 'erase ' || mind_id as unit from mind_erasures
      where finished_at is null and started_at < ${staleBefore} ${from} order by mind_id limit ${limit}`;
  },
};

/** Finishes a mind's erasure that stopped halfway (src/portability/erase.ts): every step is safe to repeat. */
export async function eraseUnit(deps: Deps, unit: { mindId: string }): Promise<WorkOutcome> {
  const finished = await finishInterruptedErasure(deps, unit.mindId);
  return { status: "done", counts: { erasures_finished: finished ? 1 : 0 } };
}

import { sql } from "drizzle-orm";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { ERASURE_STALE_MS, readErasure } from "../portability/erase";
import { startOperation } from "../portability/mind-operations";
import { idsAfter, type UnitOutcome, type UnitSource } from "../queue/handlers";

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

/**
 * Hands a mind's erasure that stopped halfway back to the mind's operations object, which goes on in
 * bounded slices where it stopped (src/portability/erase.ts): the unit itself erases nothing.
 */
export async function eraseUnit(deps: Deps, unit: { mindId: string }): Promise<UnitOutcome> {
  const erasure = await readErasure(deps, unit.mindId);
  if (!erasure || erasure.finishedAt !== null) return { status: "done", counts: { erasures_finished: 0 } };
  await startOperation(deps, { kind: "erase", mindId: unit.mindId });
  return { status: "done", counts: { erasures_handed_on: 1 } };
}

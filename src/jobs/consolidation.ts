import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { COLD_FULL, sweepStaleClaims } from "../notes/claims";
import { consolidateNotes, DEFAULT_CONSOLIDATION } from "../notes/consolidate";
import { idsAfter, nextUtcDay, type QueueJob, type UnitOutcome } from "../queue/handlers";
import { jobMindContext } from "../tenancy/mind-context";

/**
 * The hourly consolidation: each run frees claims left by stopped consolidations, then enqueues
 * every namespace with waiting notes, one message each, on every database.
 */
export const consolidationJob: QueueJob = {
  name: "consolidation",
  async beforeShard(deps, counts) {
    const freed = await sweepStaleClaims(deps);
    counts.abandoned = Number(counts.abandoned ?? 0) + freed.abandoned;
    counts.released_notes = Number(counts.released_notes ?? 0) + freed.released;
  },
  sources: [
    {
      page(_shard, after, limit) {
        const [mindId, agent] = idsAfter(after);
        const from = mindId === undefined ? sql`` : sql`and (mind_id, agent) > (${mindId}, ${agent})`;
        return sql`select 'consolidate ' || mind_id || ' ' || agent as unit from notes
          where consolidation_id is null ${from} group by mind_id, agent order by mind_id, agent limit ${limit}`;
      },
    },
  ],
};

/**
 * One namespace's consolidation (src/notes/consolidate.ts): the claim makes a repeated or
 * concurrent delivery fold each note once. More notes than one consolidation folds: the unit
 * goes round again. Over the mind's budget it waits for the next UTC day; a full cold memory is
 * counted done, its notes waiting for a person to make room.
 */
export async function consolidateUnit(deps: Deps, unit: { mindId: string; agent: string }): Promise<UnitOutcome> {
  let outcome;
  try {
    outcome = await consolidateNotes(await jobMindContext(deps, "consolidation", unit.mindId, unit.agent), DEFAULT_CONSOLIDATION);
  } catch (error) {
    // The mind was erased since the unit was enqueued: nothing is left to fold.
    if (error instanceof AppError && error.code === "not_found") return { status: "done", counts: { gone: 1 } };
    throw error;
  }
  const now = deps.clock.now();
  switch (outcome.status) {
    case "nothing":
      return { status: "done", counts: { nothing: 1 } };
    case "budget":
      return { status: "wait", until: nextUtcDay(now), reason: "budget" };
    case "full":
      return { status: "done", counts: { cold_full: 1 } };
    case "done":
      return {
        status: "done",
        counts: { done: 1, folded_notes: outcome.foldedNotes, model_calls: outcome.modelCalls, offline_parts: outcome.offlineParts },
        more: outcome.foldedNotes >= DEFAULT_CONSOLIDATION.maxNotes,
      };
    case "failed":
      if (outcome.budget) return { status: "wait", until: nextUtcDay(now), reason: "budget" };
      // Past a quota the notes wait until the mind has room; a later run tries again.
      if (outcome.code === "quota_exceeded") return { status: "done", counts: { quota: 1 } };
      // A full cold memory waits for a person to make room (its error says how): no retry, and
      // later runs skip it without a model call until its document changes.
      if (outcome.code === COLD_FULL) return { status: "done", counts: { cold_full: 1 } };
      return { status: "retry", code: outcome.code, ...(outcome.retryAfterSeconds && { retryAfterSeconds: outcome.retryAfterSeconds }) };
  }
}

import { everyShard } from "../db/client";
import { roundRobin } from "../db/shards";
import type { ModelDeps } from "../llm/generate";
import { sweepStaleClaims, namespacesWithWaitingNotes } from "../notes/claims";
import { consolidateNotes, DEFAULT_CONSOLIDATION, type ConsolidationOptions } from "../notes/consolidate";
import type { JobCounts } from "../db/job-runs";
import { loggable } from "../errors";

export interface ConsolidationJobOptions extends ConsolidationOptions {
  /** Namespaces consolidated per run at most; the rest are next hour's. */
  maxNamespaces: number;
  /** Wall time after which no new namespace is started (Cron Triggers allow 15 minutes). */
  deadlineMs: number;
}

export const DEFAULT_CONSOLIDATION_JOB: ConsolidationJobOptions = {
  ...DEFAULT_CONSOLIDATION,
  maxNamespaces: 25,
  deadlineMs: 10 * 60 * 1000,
};

/**
 * The hourly job: frees claims left by stopped runs, then consolidates the namespaces whose
 * notes have waited longest. A namespace that fails keeps its notes for the next run.
 */
export async function runConsolidationJob(
  deps: ModelDeps,
  counts: JobCounts,
  options: ConsolidationJobOptions = DEFAULT_CONSOLIDATION_JOB,
): Promise<void> {
  const deadline = Date.now() + options.deadlineMs;
  const swept = { abandoned: 0, released: 0 };
  const waiting: { mindId: string; agent: string }[][] = [];
  for (const shard of everyShard(deps)) {
    const inShard = { ...deps, db: shard.db };
    const freed = await sweepStaleClaims(inShard);
    swept.abandoned += freed.abandoned;
    swept.released += freed.released;
    waiting.push(await namespacesWithWaitingNotes(inShard, options.maxNamespaces));
  }
  Object.assign(counts, { abandoned: swept.abandoned, released_notes: swept.released });
  const tally = { namespaces: 0, done: 0, nothing: 0, budget: 0, failed: 0, folded_notes: 0, model_calls: 0 };
  Object.assign(counts, tally);
  // Each shard's longest-waiting namespaces in turn, so no shard waits for another's backlog.
  for (const target of roundRobin(waiting, options.maxNamespaces)) {
    if (Date.now() > deadline) break;
    tally.namespaces++;
    try {
      const outcome = await consolidateNotes(deps, target, options);
      if (outcome.status === "done") {
        tally.done++;
        tally.folded_notes += outcome.foldedNotes;
        tally.model_calls += outcome.modelCalls;
      } else if (outcome.status === "failed") {
        if (outcome.budget) tally.budget++;
        else tally.failed++;
      } else tally[outcome.status]++;
    } catch (error) {
      tally.failed++;
      console.error("consolidation failed", target, loggable(error));
    }
    Object.assign(counts, tally);
  }
}

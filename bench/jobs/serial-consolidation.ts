import { everyShard } from "../../src/db/client";
import { roundRobin } from "../../src/db/shards";
import type { Deps } from "../../src/deps";
import { loggable } from "../../src/errors";
import { namespacesWithWaitingNotes, sweepStaleClaims } from "../../src/notes/claims";
import { consolidateNotes, DEFAULT_CONSOLIDATION } from "../../src/notes/consolidate";
import type { JobCounts } from "../../src/queue/job-runs";
import { jobMindContext } from "../../src/tenancy/mind-context";

// The hourly consolidation as it ran before work went through the queue, kept here only as the
// benchmark's "before": one serial loop inside the cron run, at most 25 namespaces a run for the
// whole service, each waiting for the one before it, its model call included. It calls the same
// domain functions the queue's consumer calls.

const MAX_NAMESPACES = 25;
const DEADLINE_MS = 10 * 60 * 1000;

export async function runSerialConsolidation(deps: Deps, counts: JobCounts): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  const waiting: { mindId: string; agent: string }[][] = [];
  for (const shard of everyShard(deps)) {
    const inShard = { ...deps, shard: shard.db };
    await sweepStaleClaims(inShard);
    waiting.push(await namespacesWithWaitingNotes(inShard, MAX_NAMESPACES));
  }
  const tally = { namespaces: 0, done: 0, nothing: 0, budget: 0, full: 0, failed: 0 };
  for (const target of roundRobin(waiting, MAX_NAMESPACES)) {
    if (Date.now() > deadline) break;
    tally.namespaces++;
    try {
      const outcome = await consolidateNotes(await jobMindContext(deps, "consolidation", target.mindId, target.agent), DEFAULT_CONSOLIDATION);
      if (outcome.status === "failed") tally.failed++;
      else tally[outcome.status]++;
    } catch (error) {
      tally.failed++;
      console.error("consolidation failed", loggable(error));
    }
  }
  Object.assign(counts, tally);
}

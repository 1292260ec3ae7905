import { everyShard } from "../db/client";
import type { JobCounts } from "../db/job-runs";
import { markPage } from "../work/marks";
import { sendAll } from "../work/units";
import type { QueueJob, WorkDeps } from "./work-deps";

/** Due units read, marked and sent per page: one statement and one send a page. */
export const PAGE = 100;

/**
 * A cron run of one job as a producer: on every database, page by page through its due units,
 * mark each page as queued by this run (one statement) and send one message per unit the mark
 * took; a unit another run's message still holds is left to it. It does none of the work: its
 * cost grows with pages of due units, never with model calls.
 */
export async function produceJob(deps: WorkDeps, job: QueueJob, run: string, counts: JobCounts): Promise<void> {
  const skipped = job.skipped?.(deps) ?? null;
  if (skipped !== null) {
    counts.skipped = skipped;
    return;
  }
  const tally = { pages: 0, enqueued: 0, already_queued: 0 };
  Object.assign(counts, tally);
  for (const shard of everyShard(deps)) {
    const inShard = { ...deps, db: shard.db };
    await job.beforeShard?.(inShard, counts);
    for (const source of job.sources) {
      for (let after: string | null = null; ; ) {
        const now = deps.clock.now();
        const page = source.page(shard.name, after, PAGE, now);
        if (page === null) break;
        const units = await markPage(shard.db, page, run, now);
        tally.pages++;
        const fresh = units.filter((u) => u.fresh).map((u) => ({ unit: u.unit, shard: shard.name, run }));
        tally.already_queued += units.length - fresh.length;
        await sendAll(deps.queue, fresh);
        tally.enqueued += fresh.length;
        Object.assign(counts, tally);
        if (units.length < PAGE) break;
        // The page's last unit, whatever order the statement returned them in.
        after = units.reduce((last, u) => (u.unit > last ? u.unit : last), units[0]!.unit);
      }
    }
  }
}

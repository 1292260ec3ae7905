import { everyShard } from "../db/client";
import type { JobCounts } from "./job-runs";
import { markPage } from "./marks";
import { sendAll } from "./units";
import type { Deps } from "../deps";
import type { QueueJob, UnitSource } from "./job";

/** Due units read, marked and sent per page: one statement and one send a page. */
export const PAGE = 100;

/**
 * A cron run of one job as a producer: on every database, page by page through its due units,
 * mark each page as queued by this run (one statement) and send one message per unit the mark
 * took; a unit another run's message still holds is left to it. It does none of the work: its
 * cost grows with pages of due units, never with model calls.
 */
export async function produceJob(deps: Deps, job: QueueJob, run: string, counts: JobCounts): Promise<void> {
  const skipped = job.skipped?.(deps) ?? null;
  if (skipped !== null) {
    counts.skipped = skipped;
    return;
  }
  const tally = { pages: 0, enqueued: 0, already_queued: 0 };
  Object.assign(counts, tally);
  for (const shard of everyShard(deps)) {
    await job.beforeShard?.({ ...deps, shard: shard.db }, counts);
    for (const source of job.sources) {
      await enqueueDue(deps, shard.name, source, run, tally);
      Object.assign(counts, tally);
    }
  }
}

/** Pages through one source's due units on one database, marking and sending each page. */
export async function enqueueDue(
  deps: Deps,
  shard: string,
  source: UnitSource,
  run: string,
  tally: { pages: number; enqueued: number; already_queued: number },
): Promise<void> {
  const db = deps.shards.db(shard);
  for (let after: string | null = null; ; ) {
    const now = deps.clock.now();
    const page = source.page(shard, after, PAGE, now);
    if (page === null) return;
    const units = await markPage(db, page, run, now);
    tally.pages++;
    const fresh = units.filter((u) => u.fresh).map((u) => ({ unit: u.unit, shard, run }));
    tally.already_queued += units.length - fresh.length;
    await sendAll(deps.queue, fresh);
    tally.enqueued += fresh.length;
    if (units.length < PAGE) return;
    // The page's last unit, whatever order the statement returned them in.
    after = units.reduce((last, u) => (u.unit > last ? u.unit : last), units[0]!.unit);
  }
}

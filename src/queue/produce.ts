import { everyShard } from "../db/client";
import type { Deps } from "../deps";
import type { QueueJob, UnitOutcome, UnitSource } from "./handlers";
import type { JobCounts } from "./job-runs";
import { markPage } from "./marks";
import { sendAll, unitText, type WorkMessage } from "./units";

/** Due units read, marked and sent per page: one statement and one send a page. */
export const PAGE = 100;

/**
 * Pages one producer run marks and sends at most, over every database and source of its job;
 * a continuation message does as many. A cron of two jobs then makes about 2 × (10 + a few)
 * queries and as many sends, and a continuation, sharing a queue batch of 25 units, about 10
 * of each: every invocation stays well under 1,000 whatever the backlog.
 */
export const PRODUCER_PAGES = 10;

/** What a producer did: pages marked, messages sent, units another run's message holds, continuations sent. */
export interface ProducerTally {
  pages: number;
  enqueued: number;
  already_queued: number;
  continued: number;
}

/** Where a job's producing stopped on one database: the source, and the last unit of its last page (null: from the start). */
export interface ProducerPosition {
  shard: string;
  source: number;
  after: string | null;
}

const emptyTally = (): ProducerTally => ({ pages: 0, enqueued: 0, already_queued: 0, continued: 0 });

/**
 * A cron run of one job as a producer: on every database, page by page through its due units,
 * mark each page as queued by this run (one statement) and send one message per unit the mark
 * took; a unit another run's message still holds is left to it. After PRODUCER_PAGES pages it
 * stops and sends a continuation message for each database and source it did not finish, which
 * the consumer works on as the next slice. It does none of the work: its cost grows with pages
 * of due units up to the cap, never with model calls.
 */
export async function produceJob(deps: Deps, job: QueueJob, run: string, counts: JobCounts): Promise<void> {
  const skipped = job.skipped?.(deps) ?? null;
  if (skipped !== null) {
    counts.skipped = skipped;
    return;
  }
  const tally = emptyTally();
  Object.assign(counts, tally);
  const left: ProducerPosition[] = [];
  for (const shard of everyShard(deps)) {
    await job.beforeShard?.({ ...deps, shard: shard.db }, counts);
    for (const [source, units] of job.sources.entries()) {
      const start = { shard: shard.name, source, after: null };
      const rest = tally.pages < PRODUCER_PAGES ? await enqueueDue(deps, start, units, run, tally, PRODUCER_PAGES - tally.pages) : start;
      if (rest) left.push(rest);
      Object.assign(counts, tally);
    }
  }
  await sendContinuations(deps, job, run, left, tally);
  Object.assign(counts, tally);
}

/** A continuation: the next slice of a job's producing on one database, under the run that started it. */
export async function continueProducing(deps: Deps, job: QueueJob, unit: { run: string; source: number; after: string | null }, shard: string): Promise<UnitOutcome> {
  const tally = emptyTally();
  const source = job.sources[unit.source];
  // A source this deployment no longer has: nothing to continue.
  if (source) await produceSlice(deps, job, { shard, source: unit.source, after: unit.after }, unit.run, tally);
  return { status: "done", counts: { ...tally } };
}

/** Up to PRODUCER_PAGES pages of one source from `from`, and a continuation if it is not finished. */
export async function produceSlice(deps: Deps, job: QueueJob, from: ProducerPosition, run: string, tally: ProducerTally): Promise<void> {
  const rest = await enqueueDue(deps, from, job.sources[from.source]!, run, tally, PRODUCER_PAGES);
  if (rest) await sendContinuations(deps, job, run, [rest], tally);
}

/** One message per unfinished position; a lost one leaves its units to the next cron run. */
async function sendContinuations(deps: Deps, job: QueueJob, run: string, left: ProducerPosition[], tally: ProducerTally): Promise<void> {
  const messages: WorkMessage[] = left.map((at) => ({
    unit: unitText({ kind: "produce", job: job.name, run, source: at.source, after: at.after }),
    shard: at.shard,
    run,
  }));
  await sendAll(deps.queue, messages);
  tally.continued += messages.length;
}

/**
 * Pages through one source's due units on one database from `from`, marking and sending each
 * page, at most `maxPages` pages; answers where it stopped, or null when no due unit is left.
 */
export async function enqueueDue(
  deps: Deps,
  from: ProducerPosition,
  source: UnitSource,
  run: string,
  tally: Omit<ProducerTally, "continued">,
  maxPages: number,
): Promise<ProducerPosition | null> {
  const db = deps.shards.db(from.shard);
  let after = from.after;
  for (let pages = 0; pages < maxPages; pages++) {
    const now = deps.clock.now();
    const page = source.page(from.shard, after, PAGE, now);
    if (page === null) return null;
    const units = await markPage(db, page, run, now);
    tally.pages++;
    const fresh = units.filter((u) => u.fresh).map((u) => ({ unit: u.unit, shard: from.shard, run }));
    tally.already_queued += units.length - fresh.length;
    await sendAll(deps.queue, fresh);
    tally.enqueued += fresh.length;
    if (units.length < PAGE) return null;
    // The page's last unit, whatever order the statement returned them in.
    after = units.reduce((last, u) => (u.unit > last ? u.unit : last), units[0]!.unit);
  }
  return { ...from, after };
}

import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes } from "../../src/db/schema";
import { addNote } from "../../src/notes/notes";
import { QUEUED_TTL_MS } from "../../src/queue/marks";
import type { WorkMessage } from "../../src/queue/units";
import { call } from "../helpers";
import { append, newAuth, openSession } from "../sessions/session-helpers";
import { depsOfMind, HOUR, inMind, manualClock, testDeps } from "../support/deps";
import { checkEachFault, type FaultMode, type FaultPlan, faultPoints, faultyD1 } from "../support/faulty-d1";
import { freshDatabases } from "../support/fresh-databases";
import { memoryQueue, runCronWith, settleMessage, workDeps } from "../support/jobs";

// The daily run's producers (sessions to extract, each database's retention, erasures to finish)
// and the retention consumer, each D1 call faulted in turn (see consolidation-faults.test.ts for
// the hourly consolidation's): an overlapping run never enqueues a unit a second time, and
// once the lost work comes round (a retried message, a run after the marks expired) it is done.

async function dailyRun(at: Date, wrap?: (d1: D1Database) => D1Database): Promise<WorkMessage[]> {
  const queue = memoryQueue();
  try {
    await runCronWith(workDeps({ clock: manualClock(at), wrap, queue }), "30 3 * * *");
  } catch {
    // A fault at the run's own bookkeeping ends it.
  }
  return queue.messages;
}

/** A session with messages after its cursor: the daily collection's unit. */
async function sessionToExtract() {
  const auth = await newAuth();
  const session = await openSession(auth);
  await append(auth, session.id, { content: "I keep my notes in plain text" });
  return `extract ${auth.mind} ${session.id}`;
}

const shardOf = async (mindId: string) =>
  (await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<{ shard: string }>())!.shard;

/** The retention unit of the stale notes these tests delete (one per database). */
const RETENTION = "retention notes_past_retention";

// The daily run counts every database's due retention: what the files before left must not be due.
beforeAll(freshDatabases);

const count = (messages: WorkMessage[], unit: string, shard?: string) => messages.filter((m) => m.unit === unit && (shard === undefined || m.shard === shard)).length;

describe("a fault at each D1 call of the daily producer", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: overlapping runs enqueue each unit at most once, and a later run enqueues what is still due`, { timeout: 120_000 }, async () => {
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const unit = await sessionToExtract();
      const sent = await dailyRun(new Date(), (d1) => faultyD1(d1, counting));
      expect(count(sent, unit)).toBe(1);
      expect(count(sent, RETENTION)).toBe(2);
      for (const message of sent) await settleMessage(workDeps(), message, 1);
      const calls = counting.calls;

      await checkEachFault(`daily producer, fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
        const extract = await sessionToExtract();
        const start = new Date();
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        const first = await dailyRun(start, (d1) => faultyD1(d1, plan));
        expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
        const overlapping = await dailyRun(new Date(start.getTime() + 60_000));
        const both = [...first, ...overlapping];
        expect(count(both, extract), `call ${failAt}: ${extract}`).toBeLessThanOrEqual(1);
        for (const shard of ["DB", "SHARD_1"]) expect(count(both, RETENTION, shard), `call ${failAt}: retention on ${shard}`).toBeLessThanOrEqual(1);
        // Unless a message was sent, the marks' expiry brings the units back with a later run.
        const later = await dailyRun(new Date(start.getTime() + QUEUED_TTL_MS + 60_000));
        const all = [...both, ...later];
        expect(count(all, extract), `call ${failAt}: ${extract} at last`).toBeGreaterThanOrEqual(1);
        for (const shard of ["DB", "SHARD_1"]) expect(count(all, RETENTION, shard), `call ${failAt}: retention on ${shard} at last`).toBeGreaterThanOrEqual(1);
        // Delivered (no model here: extraction waits, retention runs), the marks are released for the next case.
        const at = new Date(start.getTime() + QUEUED_TTL_MS + 120_000);
        for (const message of all) await settleMessage(workDeps({ clock: manualClock(at) }), message, 1);
      });
    });
  }
});

describe("a fault at each D1 call of the retention consumer", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the retried message or a later run deletes what was due`, { timeout: 180_000 }, async () => {
      const now = new Date(Date.now() + 48 * HOUR);
      // Every case on the same database, so each has the same D1 calls (the directory has one more step).
      const staleNote = async (onShard?: string) => {
        let auth = await newAuth();
        for (let i = 0; onShard !== undefined && (await shardOf(auth.mind)) !== onShard && i < 10; i++) auth = await newAuth();
        await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { retention_hours: 1 } });
        await addNote(await inMind(testDeps({ clock: manualClock(new Date(now.getTime() - 3 * HOUR)) }), { mindId: auth.mind }), { text: "an old note" });
        const db = (await depsOfMind(auth.mind)).shard;
        return { mindId: auth.mind, db, shard: await shardOf(auth.mind) };
      };
      const left = async (m: Awaited<ReturnType<typeof staleNote>>) => (await m.db.select().from(notes).where(eq(notes.mindId, m.mindId))).length;
      const baseline = await staleNote();
      const message: WorkMessage = { unit: RETENTION, shard: baseline.shard, run: "run_fault_baseline" };
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      await settleMessage(workDeps({ clock: manualClock(now), wrap: (d1) => faultyD1(d1, counting) }), message, 1);
      expect(await left(baseline)).toBe(0);
      const calls = counting.calls;
      // The step's delete, and the mark's release.
      expect(calls).toBeGreaterThanOrEqual(2);

      await checkEachFault(`retention consumer, fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
        const m = await staleNote(baseline.shard);
        expect(m.shard).toBe(baseline.shard);
        const unitMessage: WorkMessage = { unit: RETENTION, shard: m.shard, run: `run_fault_${failAt}` };
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        const settled = await settleMessage(workDeps({ clock: manualClock(now), wrap: (d1) => faultyD1(d1, plan) }), unitMessage, 1);
        expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
        // A failure is retried; an acknowledged message whose work a fault cut short comes back with a later run.
        if (!settled.ack) await settleMessage(workDeps({ clock: manualClock(now) }), unitMessage, 2);
        for (const later of await dailyRun(new Date(now.getTime() + QUEUED_TTL_MS))) {
          await settleMessage(workDeps({ clock: manualClock(new Date(now.getTime() + QUEUED_TTL_MS)) }), later, 1);
        }
        expect(await left(m), `fault ${mode} D1 call ${failAt} of ${calls}`).toBe(0);
      });
    });
  }
});

import { beforeAll, describe, expect, it } from "vitest";
import { QUEUED_TTL_MS } from "../../src/queue/marks";
import type { WorkMessage } from "../../src/queue/units";
import { manualClock } from "../support/deps";
import { checkEachFault, type FaultMode, type FaultPlan, faultPoints, faultyD1 } from "../support/faulty-d1";
import { freshDatabases } from "../support/fresh-databases";
import { memoryQueue, runCronWith, settleMessage, workDeps } from "../support/jobs";
import { coldOf, consolidationsOf, foldingTurn, newNotesMind, storedNotes, versionsOf } from "../support/long-term";
import { scriptedModel } from "../support/scripted-model";

// The hourly job sweeps every mind and it counts its D1 calls: it starts from empty databases.
beforeAll(freshDatabases);

// The hourly consolidation is a producer (the cron run pages through namespaces with waiting
// notes and enqueues one message each) and a consumer (one namespace per message). Each D1 call
// of either is faulted in turn, before it reaches D1 or after D1 did the work (the answer lost):
// once the lost work comes round again (a retried message, a later run after the marks
// expired), the mind ends exactly as a fault-free run leaves it: every note folded once, one
// cold version.

const NOTES: [string, string][] = [
  ["Prefers answers in Russian", "preferences"],
  ["Never push to main directly", "avoid"],
  ["Works on the payments gateway", "project"],
  ["prefers answers in russian.", "preference"],
];

async function mindWithNotes() {
  const m = await newNotesMind({ settings: { daily_token_budget: 1_000_000 } });
  for (const [text, hint] of NOTES) await m.addNote(text, hint);
  return m;
}

const model = (withModel: boolean) => (withModel ? scriptedModel([foldingTurn]).model : null);

async function finalState(mindId: string) {
  return {
    cold: { ...(await coldOf(mindId)), updated_at: null },
    versions: (await versionsOf(mindId)).map((v) => ({ version: v.version, text: v.text, author: v.author })),
    waiting: (await storedNotes(mindId)).length,
    done: (await consolidationsOf(mindId)).filter((c) => c.status === "done").length,
  };
}

/** An hourly cron run at `at` over databases seen through `wrap`; its failure is swallowed, as the next run starts afresh. */
async function hourlyRun(at: Date, wrap?: (d1: D1Database) => D1Database) {
  const queue = memoryQueue();
  const deps = workDeps({ clock: manualClock(at), wrap, queue });
  try {
    await runCronWith(deps, "0 * * * *");
  } catch {
    // A fault at the run's own bookkeeping ends it.
  }
  return queue.messages;
}

/** Delivers messages fault-free until none is left, a retried one again at once (its backoff skipped). */
async function deliverAll(messages: WorkMessage[], at: Date, withModel: boolean) {
  const deps = workDeps({ clock: manualClock(at), llm: model(withModel) });
  deps.queue.messages.push(...messages);
  for (let round = 0; round < 5 && deps.queue.messages.length > 0; round++) {
    const pending = deps.queue.messages.splice(0);
    for (const message of pending) {
      const settled = await settleMessage(deps, message, round + 1);
      if (!settled.ack) deps.queue.messages.push(message);
    }
  }
  expect(deps.queue.messages, "every message settles").toEqual([]);
}

const ofMind = (mindId: string) => (m: WorkMessage) => m.unit.includes(mindId);

for (const withModel of [false, true]) {
  const setup = withModel ? "scripted model" : "no model";

  describe(`a fault at each D1 call of the hourly consolidation producer (${setup})`, () => {
    for (const mode of ["before", "after"] as FaultMode[]) {
      it(`fault ${mode} the call: a later run enqueues the namespace once, and it is folded once`, { timeout: 120_000 }, async () => {
        const baseline = await mindWithNotes();
        const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
        const sent = await hourlyRun(new Date(), (d1) => faultyD1(d1, counting));
        expect(sent.filter(ofMind(baseline.mindId))).toHaveLength(1);
        await deliverAll(sent, new Date(), withModel);
        const expected = await finalState(baseline.mindId);
        expect(expected).toMatchObject({ waiting: 0, done: 1, cold: { version: 1 } });
        const calls = counting.calls;
        // The run's record (2), and on each of the two databases the claim sweep and one page.
        expect(calls).toBeGreaterThanOrEqual(6);

        await checkEachFault(`consolidation producer (${setup}), fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
          const m = await mindWithNotes();
          const start = new Date();
          const plan: FaultPlan = { failAt, mode, calls: 0 };
          const first = await hourlyRun(start, (d1) => faultyD1(d1, plan));
          expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
          // An overlapping run, before any message is delivered, does not enqueue a unit a mark holds:
          // the namespace is enqueued once by the two runs (none when the fault stopped the first
          // after marking it and before sending: the mark's expiry brings it back).
          const overlapping = await hourlyRun(new Date(start.getTime() + 60_000));
          const once = [...first, ...overlapping].filter(ofMind(m.mindId));
          expect(once.length, `call ${failAt}: messages of the overlapping runs`).toBeLessThanOrEqual(1);
          await deliverAll([...first, ...overlapping], start, withModel);
          const later = new Date(start.getTime() + QUEUED_TTL_MS + 60_000);
          const second = await hourlyRun(later);
          await deliverAll(second, later, withModel);
          expect(await finalState(m.mindId), `fault ${mode} D1 call ${failAt} of ${calls}`).toEqual(expected);
        });
      });
    }
  });

  describe(`a fault at each D1 call of the consolidation consumer (${setup})`, () => {
    for (const mode of ["before", "after"] as FaultMode[]) {
      it(`fault ${mode} the call: the message is retried or its unit enqueued again, and the notes are folded once`, { timeout: 120_000 }, async () => {
        const baseline = await mindWithNotes();
        const sent = (await hourlyRun(new Date())).filter(ofMind(baseline.mindId));
        const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
        const deps = workDeps({ wrap: (d1) => faultyD1(d1, counting), llm: model(withModel) });
        expect(await settleMessage(deps, sent[0], 1)).toMatchObject({ ack: true, outcome: { status: "done" } });
        const expected = await finalState(baseline.mindId);
        expect(expected).toMatchObject({ waiting: 0, done: 1, cold: { version: 1 } });
        const calls = counting.calls;
        expect(calls).toBeGreaterThanOrEqual(withModel ? 8 : 5);

        await checkEachFault(`consolidation consumer (${setup}), fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
          const m = await mindWithNotes();
          const start = new Date();
          const [message] = (await hourlyRun(start)).filter(ofMind(m.mindId));
          const plan: FaultPlan = { failAt, mode, calls: 0 };
          const faulty = workDeps({ clock: manualClock(start), wrap: (d1) => faultyD1(d1, plan), llm: model(withModel) });
          const settled = await settleMessage(faulty, message!, 1);
          expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
          // A retried message comes again; an acknowledged one whose unit is still due comes with a later run.
          if (!settled.ack) await deliverAll([message!], start, withModel);
          const later = new Date(start.getTime() + QUEUED_TTL_MS + 60_000);
          await deliverAll(await hourlyRun(later), later, withModel);
          expect(await finalState(m.mindId), `fault ${mode} D1 call ${failAt} of ${calls}`).toEqual(expected);
        });
      });
    }
  });
}

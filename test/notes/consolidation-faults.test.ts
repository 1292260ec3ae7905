import { beforeAll, describe, expect, it } from "vitest";
import { runConsolidationJob } from "../../src/cron/consolidation";
import { runJob } from "../../src/db/job-runs";
import { HOUR, manualClock, testDeps } from "../support/deps";
import { faultyD1, type FaultMode, type FaultPlan } from "../support/faulty-d1";
import { coldOf, consolidationsOf, foldingTurn, newNotesMind, storedNotes, versionsOf } from "../support/long-term";
import { scriptedModel } from "../support/scripted-model";
import { freshDatabases } from "../support/fresh-databases";

// The hourly job sweeps every mind and it counts its D1 calls: it starts from empty databases.
beforeAll(freshDatabases);

// Every run of this file works on its own storage, and each case below consolidates one fresh
// mind: the hourly job then has exactly that mind's notes to fold.

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

/** One hourly run over every database, each seen through `wrap` (faulty or not), as the cron runs it; its failure is swallowed. */
async function hourlyRun(wrap: ((d1: D1Database) => D1Database) | undefined, at: Date, withModel: boolean) {
  const deps = testDeps({ wrap, clock: manualClock(at), llm: withModel ? scriptedModel([foldingTurn]).model : null });
  try {
    await runJob(deps, "consolidation", "0 * * * *", (counts) => runConsolidationJob(deps, counts));
  } catch {
    // A fault at the job's own bookkeeping ends the run; the next run starts afresh.
  }
}

async function finalState(mindId: string) {
  return {
    cold: await coldOf(mindId),
    versions: (await versionsOf(mindId)).map((v) => ({ version: v.version, text: v.text, author: v.author })),
    waiting: (await storedNotes(mindId)).length,
    done: (await consolidationsOf(mindId)).filter((c) => c.status === "done").length,
  };
}

const strip = (state: Awaited<ReturnType<typeof finalState>>) => ({ ...state, cold: { ...state.cold, updated_at: null } });

for (const withModel of [false, true]) {
  describe(`a fault at each D1 call of the hourly consolidation (${withModel ? "scripted model" : "no model"})`, () => {
    for (const mode of ["before", "after"] as FaultMode[]) {
      // Two hourly runs for each D1 call of a run: longer than one test's default on a busy machine.
      it(`fault ${mode} the call: the next hourly run ends where a fault-free run ends`, { timeout: 120_000 }, async () => {
        const baselineMind = await mindWithNotes();
        const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
        await hourlyRun((d1) => faultyD1(d1, counting), new Date(), withModel);
        const expected = strip(await finalState(baselineMind.mindId));
        expect(expected.waiting).toBe(0);
        expect(expected.cold.version).toBe(1);
        expect(expected.done).toBe(1);
        const calls = counting.calls;
        expect(calls).toBeGreaterThanOrEqual(withModel ? 9 : 7);

        for (let failAt = 1; failAt <= calls; failAt++) {
          const m = await mindWithNotes();
          const plan: FaultPlan = { failAt, mode, calls: 0 };
          const start = new Date();
          await hourlyRun((d1) => faultyD1(d1, plan), start, withModel);
          expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
          await hourlyRun(undefined, new Date(start.getTime() + HOUR), withModel);
          expect(strip(await finalState(m.mindId)), `fault ${mode} D1 call ${failAt} of ${calls}`).toEqual(expected);
        }
      });
    }
  });
}

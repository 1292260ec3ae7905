import { describe, expect, it } from "vitest";
import { extractSession } from "../../src/sessions/extract-notes";
import { append, newAuth, openSession } from "../sessions/session-helpers";
import { depsOfMind } from "../support/deps";
import { checkEachFault, type FaultMode, type FaultPlan, faultPoints, faultyD1 } from "../support/faulty-d1";
import { mindState } from "../support/mind-state";
import { scriptedModel } from "../support/scripted-model";

const ANSWER = JSON.stringify({
  notes: [
    { text: "Writes new services in Go", section: "preferences", signal: "preference" },
    { text: "Never uses ORMs in new services", section: "avoid", signal: "prohibition" },
  ],
});

/** A fresh mind with one session of three messages waiting for extraction. */
async function sessionToExtract() {
  const auth = await newAuth();
  const session = await openSession(auth, { task_name: "faults" });
  await append(auth, session.id, { content: "I write all new services in Go." });
  await append(auth, session.id, { role: "assistant", content: "Noted." });
  await append(auth, session.id, { content: "And never use ORMs in them." });
  return { mindId: auth.mind, sessionId: session.id };
}

async function extract(wrap: ((d1: D1Database) => D1Database) | undefined, target: { mindId: string; sessionId: string }) {
  try {
    // The session object works in the mind's database, as here.
    await extractSession(await depsOfMind(target.mindId, { wrap, llm: scriptedModel([ANSWER]).model }), target);
  } catch {
    // The fault ends the run, as it ends the session object's alarm; the next run starts afresh.
  }
}

describe("a fault at each D1 call of an extraction", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    // Two extractions for each D1 call of one: longer than one test's default on a busy machine.
    it(`fault ${mode} the call: the mind is as it was or as a fault-free run leaves it, and the next run ends where that one ends`, { timeout: 120_000 }, async () => {
      const baseline = await sessionToExtract();
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      await extract((d1) => faultyD1(d1, counting), baseline);
      const expected = await mindState(baseline.mindId);
      expect(expected.notes).toHaveLength(2);
      expect(expected.cursors).toEqual([{ task_name: "faults", extracted: 3 }]);
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(3);

      await checkEachFault(`extraction, fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
        const target = await sessionToExtract();
        const start = await mindState(target.mindId);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        await extract((d1) => faultyD1(d1, plan), target);
        expect(plan.calls, `the fault at call ${failAt} was reached`).toBeGreaterThanOrEqual(failAt);
        const after = await mindState(target.mindId);
        expect([start, expected], `fault ${mode} D1 call ${failAt} of ${calls}: ${JSON.stringify(after)}`).toContainEqual(after);
        await extract(undefined, target);
        expect(await mindState(target.mindId), `the run after a fault ${mode} D1 call ${failAt}`).toEqual(expected);
      });
    });
  }
});

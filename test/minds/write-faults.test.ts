import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { importMind } from "../../src/minds/import";
import { deleteMind } from "../../src/minds/minds";
import { call, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { testDeps } from "../support/deps";
import { faultyD1, type FaultMode, type FaultPlan } from "../support/faulty-d1";
import { mindState } from "../support/mind-state";

/** A mind with one of everything an archive carries, and its archive. */
async function mindWithArchive() {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  await call("PATCH", `/minds/${t.mind.id}`, { token: t.token, body: { locale: "ru", settings: { llm_window: 8 } } });
  await store(auth, { key: "coffee_order", content: "Likes coffee", tags: ["drinks"] });
  await call("PUT", `/memory/${(await store(auth, { key: "tea_order", content: "Likes tea" })).id}`, { ...auth, body: { content: "Likes green tea" } });
  await call("POST", "/notes", { ...auth, body: { text: "prefers mornings" } });
  await call("PUT", "/cold", { ...auth, body: { text: "- coffee", version: 0 } });
  await call("PUT", "/cold", { ...auth, body: { text: "- coffee\n- tea", version: 1 } });
  const session = await openSession(auth, { task_name: "deploy" });
  await append(auth, session.id, { content: "first" });
  await append(auth, session.id, { role: "tool", content: "log", ephemeral: true, tool: "build" });
  const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
  return { ...t, archive };
}

/** Every database seen through `wrap` (faulty or not). */
const deps = (wrap?: (d1: D1Database) => D1Database) => ({ ...testDeps({ wrap }), sessionObjects: env.SESSIONS });

describe("a fault at each D1 call of an import", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind is left empty with its settings as they were, or fully imported`, async () => {
      const source = await mindWithArchive();
      const baselineMind = (await newMind(source.token)).id;
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      await importMind(deps((d1) => faultyD1(d1, counting)), source.accountId, baselineMind, source.archive);
      const imported = await mindState(baselineMind);
      expect(imported.counts).toMatchObject({ memories: 2, memory_history: 3, notes: 1, cold_versions: 2, sessions: 1, messages: 2 });
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(3);

      for (let failAt = 1; failAt <= calls; failAt++) {
        const target = (await newMind(source.token)).id;
        const start = await mindState(target);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        const outcome = await importMind(deps((d1) => faultyD1(d1, plan)), source.accountId, target, source.archive).then(() => "done", () => "failed");
        // A mind on DB takes fewer calls than one on another shard (its row is the directory's): a fault past its last call is never reached.
        if (plan.calls >= failAt) expect(outcome).toBe("failed");
        expect([start, imported], `fault ${mode} D1 call ${failAt} of ${calls}: ${JSON.stringify(await mindState(target))}`).toContainEqual(await mindState(target));
        // The same archive imports afterwards as if nothing had happened.
        if (outcome === "failed") await importMind(deps(), source.accountId, target, source.archive);
        expect(await mindState(target), `the import after a fault ${mode} D1 call ${failAt}`).toEqual(imported);
      }
    });
  }
});

describe("a fault at each D1 call of erasing a mind", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind is whole or gone, and erasing it again leaves nothing`, async () => {
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const baseline = await mindWithArchive();
      await deleteMind(deps((d1) => faultyD1(d1, counting)), baseline.accountId, baseline.mind.id);
      const gone = await mindState(baseline.mind.id);
      expect(Object.values(gone.counts).every((n) => n === 0)).toBe(true);
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(2);

      for (let failAt = 1; failAt <= calls; failAt++) {
        const t = await mindWithArchive();
        const start = await mindState(t.mind.id);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        await expect(deleteMind(deps((d1) => faultyD1(d1, plan)), t.accountId, t.mind.id)).rejects.toThrow();
        // A mind on a shard other than DB is erased there first, then from the directory: between
        // the two, its data is gone while the directory still lists it (writes to it are refused).
        const after = await mindState(t.mind.id);
        const dataErased = ["memories", "memory_history", "notes", "cold_versions", "sessions", "messages"].every((table) => after.counts[table] === 0);
        if (!dataErased) expect([start, gone], `fault ${mode} D1 call ${failAt} of ${calls}`).toContainEqual(after);
        // The person erases again: the mind is gone either way (404 once it already is).
        const again = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
        expect([200, 404]).toContain(again.status);
        expect(await mindState(t.mind.id)).toEqual(gone);
      }
    });
  }
});

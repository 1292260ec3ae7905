import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { importMind } from "../../src/minds/import";
import { runInDurableObject } from "cloudflare:test";
import { runRetentionJob } from "../../src/cron/retention";
import { deleteMind, ERASURE_STALE_MS } from "../../src/minds/erase";
import { call, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { testDeps } from "../support/deps";
import { faultPoints, faultSample, faultTally, faultyD1, type FaultMode, type FaultPlan } from "../support/faulty-d1";
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

/** Whether the session's object still keeps anything in its storage. */
const objectKeeps = (sessionId: string) =>
  runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)), async (_instance, state) => (await state.storage.list()).size > 0);

describe("a fault at each D1 call of erasing a mind", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind is whole or answers as missing; erasing again or the retention job finishes it`, async () => {
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const baseline = await mindWithArchive();
      const counted = await deleteMind(deps((d1) => faultyD1(d1, counting)), baseline.accountId, baseline.mind.id);
      expect(counted).toMatchObject({ minds: 1, memories: 2, memory_history: 3, notes: 1, cold_versions: 2, sessions: 1, messages: 2 });
      const gone = await mindState(baseline.mind.id);
      expect(Object.values(gone.counts).every((n) => n === 0)).toBe(true);
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(8);
      const tally = (faultTally[`erase, fault ${mode} the call`] = { calls, checked: 0 });

      // Every call in the bench (`npm run bench -- faults`); a seeded sample here, so the suite stays quick.
      for (const failAt of faultPoints(calls, faultSample(8), mode === "before" ? 3 : 5)) {
        const t = await mindWithArchive();
        const auth = { token: t.token, mind: t.mind.id };
        const sessionId = (await call("GET", "/sessions", auth)).json.sessions[0].id;
        expect(await objectKeeps(sessionId)).toBe(true);
        const start = await mindState(t.mind.id);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        const where = `fault ${mode} D1 call ${failAt} of ${calls}`;
        await expect(deleteMind(deps((d1) => faultyD1(d1, plan)), t.accountId, t.mind.id), where).rejects.toThrow();
        const after = await mindState(t.mind.id);
        // Not yet marked, the mind is whole; once marked it answers as missing, whatever of its rows remain.
        const missing = (await call("GET", `/minds/${t.mind.id}`, { token: t.token })).status === 404;
        if (!missing) expect(after, where).toEqual(start);
        else {
          expect((await call("GET", "/memory", auth)).status, where).toBe(404);
          expect((await call("GET", "/minds", { token: t.token })).json.minds, where).toEqual([]);
        }
        if (failAt % 2 === 1 || !missing) {
          // The person erases again: it succeeds and answers what was erased.
          const again = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
          expect(again.status, where).toBe(200);
          expect(again.json.deleted, where).toEqual({ ...counted, mind_keys: again.json.deleted.mind_keys, login_links: again.json.deleted.login_links });
        } else {
          // Nobody asks again: the daily retention finishes it once it has waited long enough.
          const later = testDeps({ clock: { now: () => new Date(Date.now() + ERASURE_STALE_MS + 60_000) } });
          await runRetentionJob({ ...later, sessionObjects: env.SESSIONS }, {});
        }
        expect(await mindState(t.mind.id), where).toEqual(gone);
        expect(await objectKeeps(sessionId), where).toBe(false);
        // Asked once more, the answer is the same.
        const last = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
        expect(last.status, where).toBe(200);
        tally.checked++;
      }
    }, 3_600_000);
  }
});

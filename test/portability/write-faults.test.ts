import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deleteMind, ERASURE_STALE_MS } from "../../src/portability/erase";
import { abandonImport, acceptImport, runImport } from "../../src/portability/import/imports";
import { call, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { testDeps } from "../support/deps";
import { checkEachFault, type FaultMode, type FaultPlan, faultPoints, faultSample, faultyD1 } from "../support/faulty-d1";
import { runNow } from "../support/jobs";
import { mindState } from "../support/mind-state";
import { driveOperationsObject } from "../support/operations-object";
import { countEverywhere } from "../support/shards";

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
const deps = (wrap?: (d1: D1Database) => D1Database) => (testDeps({ wrap }));

/** Rows an import staged for the mind, or parts of its archive, not written or dropped yet. */
const stagedLeft = async (mindId: string) =>
  (await countEverywhere("select count(*) as n from import_rows where import_id in (select id from imports where mind_id = ?)", mindId)) +
  (await countEverywhere("select count(*) as n from import_parts where import_id in (select id from imports where mind_id = ?)", mindId));

/**
 * An import as its request and its object run it: staged, then written until it ends. A run
 * that fails is run again from the import's progress, as the object's next alarm does; `giveUp`
 * instead abandons the import after the first failed run, as the object does after its last retry.
 */
async function importThrough(d: ReturnType<typeof deps>, clean: ReturnType<typeof deps>, accountId: string, mindId: string, archive: string, giveUp = false) {
  const archiveImport = (await acceptImport(d, accountId, mindId, [new TextEncoder().encode(archive)])).archiveImport;
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await runImport(d, mindId, archiveImport.id, () => true).then((j) => j, () => null);
    if (run && (run.state === "done" || run.state === "failed")) return run;
    if (giveUp) return abandonImport(clean, mindId, archiveImport.id);
  }
  throw new Error("the import did not end");
}

describe("a fault at each D1 call of an import", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the import resumes to the whole mind, or is undone to the mind as it was`, async () => {
      const source = await mindWithArchive();
      const baselineMind = (await newMind(source.token)).id;
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const counted = deps((d1) => faultyD1(d1, counting));
      expect(await importThrough(counted, deps(), source.accountId, baselineMind, source.archive)).toMatchObject({ state: "done" });
      const imported = await mindState(baselineMind);
      expect(imported.counts).toMatchObject({ memories: 2, memory_history: 3, notes: 1, cold_versions: 2, sessions: 1, messages: 2 });
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(10);

      const seen = new Set<string>();
      const tally = await checkEachFault(`import, fault ${mode} the call`, calls, faultPoints(calls, Infinity, 0), async (failAt) => {
        for (const giveUp of [false, true]) {
          const target = (await newMind(source.token)).id;
          const start = await mindState(target);
          const plan: FaultPlan = { failAt, mode, calls: 0 };
          const what = `fault ${mode} D1 call ${failAt} of ${calls}${giveUp ? ", then given up" : ""}`;
          const archiveImport = await importThrough(deps((d1) => faultyD1(d1, plan)), deps(), source.accountId, target, source.archive, giveUp).catch(() => null);
          const after = await mindState(target);
          // A fault while the request stores the archive fails it; a fault while the import checks, stages or
          // writes is resumed, or undone when given up.
          seen.add(archiveImport === null ? "request failed" : archiveImport.state);
          if (archiveImport === null) expect(after, what).toEqual(start);
          else if (archiveImport.state === "done") expect(after, what).toEqual(imported);
          else expect([archiveImport.state, after], what).toEqual(["failed", start]);
          expect(await stagedLeft(target), what).toBe(0);
          // The same archive imports afterwards as if nothing had happened.
          if (archiveImport?.state !== "done") await importThrough(deps(), deps(), source.accountId, target, source.archive);
          expect(await mindState(target), `the import after a ${what}`).toEqual(imported);
        }
      });
      // Faults struck while storing, while staging or writing (resumed) and before giving up (undone), when this run took every call.
      if (tally.taken === calls) expect([...seen].sort()).toEqual(["done", "failed", "request failed"]);
    }, 300_000);
  }

  it("writes each slice once when two runs of the same archiveImport race", async () => {
    const source = await mindWithArchive();
    const baseline = (await newMind(source.token)).id;
    await importThrough(deps(), deps(), source.accountId, baseline, source.archive);
    const target = (await newMind(source.token)).id;
    const archiveImport = (await acceptImport(deps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    const runs = await Promise.allSettled([runImport(deps(), target, archiveImport.id, () => true), runImport(deps(), target, archiveImport.id, () => true)]);
    if (runs.some((r) => r.status === "rejected")) await runImport(deps(), target, archiveImport.id, () => true);
    expect(await mindState(target)).toEqual(await mindState(baseline));
  });
});

/** Whether the session's object still keeps anything in its storage. */
const objectKeeps = (sessionId: string) =>
  runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)), async (_instance, state) => (await state.storage.list()).size > 0);

describe("a fault at each D1 call of erasing a mind", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind is whole or answers as missing; erasing again or the retention archiveImport finishes it`, async () => {
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const baseline = await mindWithArchive();
      const counted = await deleteMind(deps((d1) => faultyD1(d1, counting)), baseline.accountId, baseline.mind.id);
      expect(counted).toMatchObject({ minds: 1, memories: 2, memory_history: 3, notes: 1, cold_versions: 2, sessions: 1, messages: 2 });
      const gone = await mindState(baseline.mind.id);
      expect(Object.values(gone.counts).every((n) => n === 0)).toBe(true);
      const calls = counting.calls;
      expect(calls).toBeGreaterThanOrEqual(8);

      // Every call in the bench (`npm run bench -- faults`); a seeded sample here, so the suite stays quick.
      await checkEachFault(`erase, fault ${mode} the call`, calls, faultPoints(calls, faultSample(8), mode === "before" ? 3 : 5), async (failAt) => {
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
          await runNow("retention", later, {});
          // It hands the erasure back to the mind's operations object, which finishes it in its runs.
          await driveOperationsObject(t.mind.id);
        }
        expect(await mindState(t.mind.id), where).toEqual(gone);
        expect(await objectKeeps(sessionId), where).toBe(false);
        // Asked once more, the answer is the same.
        const last = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
        expect(last.status, where).toBe(200);
      });
    }, 3_600_000);
  }
});

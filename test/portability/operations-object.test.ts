import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Deps } from "../../src/deps";
import { acceptImport } from "../../src/portability/import/imports";
import { importMind } from "../../src/portability/import/request";
import { eraseMind, startOperation } from "../../src/portability/mind-operations";
import { moveProgress, startMove } from "../../src/portability/move/move";
import { OPERATIONS, type OperationRef } from "../../src/portability/operations";
import { retryDelay } from "../../src/retry";
import { DIRECTORY_TTL_MS } from "../../src/tenancy/directory-cache";
import { ADMIN_TOKEN, call, newMind, newTenant, store } from "../helpers";
import { testDeps } from "../support/deps";
import { type FaultPlan, faultyD1 } from "../support/faulty-d1";
import { runJobNow, workDeps } from "../support/jobs";
import { mindState } from "../support/mind-state";
import { driveOperationsObject, operationsObjectOf } from "../support/operations-object";
import { countEverywhere, dataOf } from "../support/shards";

const objects = { mindOperations: env.MIND_OPERATIONS };
const objectOf = operationsObjectOf;
const drive = driveOperationsObject;

/**
 * D1 as the mind's operations object sees it: every call fails while `broken`, and `failNext` fails the
 * next call only (the fault helper's plan, counting every round trip).
 */
function faults() {
  const state = { broken: false, calls: 0, failAt: Infinity, taken: 0, seen: 0 };
  const plan: FaultPlan = {
    mode: "before",
    get calls() {
      return state.calls;
    },
    set calls(n) {
      state.calls = n;
    },
    // Read once or twice per call: a fault taken is counted once.
    get failAt() {
      const at = state.broken ? state.calls : state.failAt;
      if (at === state.calls && state.seen !== state.calls) state.taken++;
      state.seen = state.calls;
      return at;
    },
  };
  return {
    state,
    failNext: () => void (state.failAt = state.calls + 1),
    deps: (): Deps => testDeps({ wrap: (d1) => faultyD1(d1, plan) }),
  };
}

/** Puts the faulty databases under the mind's operations object (its own are built from the Worker's bindings). */
async function underFaults(mindId: string, fault: ReturnType<typeof faults>): Promise<void> {
  await runInDurableObject(objectOf(mindId), (instance) => {
    Object.assign(instance, { deps: { semantic: fault.deps(), plain: fault.deps() } });
  });
}


/** Failed runs in a row the mind's operations object counts (0: none). */
const failuresOf = (mindId: string) =>
  runInDurableObject(objectOf(mindId), (_instance, state) => state.storage.kv.get<{ count: number }>("failures")?.count ?? 0);

/** Waits until the check holds (the object's own alarm runs in the background). */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error("the operations object did not get there in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A mind holding three memories, its archive, and an empty mind of the same account to import it into. */
async function archiveAndTarget() {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  for (const key of ["tea", "coffee", "water"]) await store(auth, { key, content: `Likes ${key}` });
  const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
  const target = (await newMind(t.token)).id;
  return { ...t, archive, target };
}

const accept = (accountId: string, mindId: string, archive: string) =>
  acceptImport(testDeps(), accountId, mindId, [new TextEncoder().encode(archive)]).then((r) => r.archiveImport);

const importState = async (mindId: string, importId: string) =>
  (await (await dataOf(mindId)).prepare("select state, error_code from imports where id = ?").bind(importId).first<{ state: string; error_code: string | null }>())!;

describe("the mind's operations object", () => {
  it("runs an import to the end, resuming after a failed run from the archiveImport's progress", async () => {
    const s = await archiveAndTarget();
    const fault = faults();
    await underFaults(s.target, fault);
    const archiveImport = await accept(s.accountId, s.target, s.archive);
    fault.failNext();
    const ref: OperationRef = { kind: "import", mindId: s.target, importId: archiveImport.id };
    await (await startOperation(objects, ref)).runFor(ref, 60_000);
    // A run met the fault; the object's next run went on from the import's progress.
    await drive(s.target);
    expect(fault.state.taken).toBe(1);
    expect(await importState(s.target, archiveImport.id)).toEqual({ state: "done", error_code: null });
    expect((await mindState(s.target)).counts.memories).toBe(3);
    expect(await countEverywhere("select count(*) as n from import_rows where import_id = ?", archiveImport.id)).toBe(0);
  });

  it("gives an import up after the policy's last try and undoes it: the mind is as it was", async () => {
    const s = await archiveAndTarget();
    const fault = faults();
    await underFaults(s.target, fault);
    const before = await mindState(s.target);
    const archiveImport = await accept(s.accountId, s.target, s.archive);
    fault.state.broken = true;
    await startOperation(objects, { kind: "import", mindId: s.target, importId: archiveImport.id });
    const attempts = OPERATIONS.import.policy.attempts!;
    // One failed run per alarm; the object's own alarm may be in the middle of one (then there is
    // no alarm to run), so the failures are counted rather than the alarms run.
    await until(async () => {
      if ((await failuresOf(s.target)) >= attempts - 1) return true;
      await runDurableObjectAlarm(objectOf(s.target));
      return false;
    });
    expect((await importState(s.target, archiveImport.id)).state).not.toBe("failed");
    expect(await failuresOf(s.target)).toBeGreaterThanOrEqual(attempts - 1);
    // The last try fails too (its first D1 call); the undo then runs on databases that answer again.
    fault.state.broken = false;
    fault.failNext();
    await drive(s.target);
    expect(await importState(s.target, archiveImport.id)).toEqual({ state: "failed", error_code: "internal" });
    expect(await mindState(s.target)).toEqual(before);
  });

  it("runs a move between shards to the end, its failures counted once and shown on the move", async () => {
    const t = await newTenant();
    await store({ token: t.token, mind: t.mind.id }, { key: "tea", content: "Likes tea" });
    const from = (await env.DB.prepare("select shard from minds where id = ?").bind(t.mind.id).first<{ shard: string }>())!.shard;
    const to = from === "DB" ? "SHARD_1" : "DB";
    const fault = faults();
    await underFaults(t.mind.id, fault);
    await startMove(testDeps(), t.mind.id, to);
    // Three runs in a row fail, each at its first D1 call (the first run is the object's own alarm).
    fault.failNext();
    await startOperation(objects, { kind: "move", mindId: t.mind.id });
    await until(async () => (await failuresOf(t.mind.id)) === 1);
    for (let failures = 2; failures <= 3; failures++) {
      fault.failNext();
      // The retry may come from the object's own alarm first: the failure is counted, not assumed.
      await until(async () => {
        if ((await failuresOf(t.mind.id)) >= failures) return true;
        await runDurableObjectAlarm(objectOf(t.mind.id));
        return false;
      });
    }
    // The failure count is the object's; the move shows it, and the pause follows the move's policy.
    const failures = await failuresOf(t.mind.id);
    const alarm = await runInDurableObject(objectOf(t.mind.id), (_instance, state) => state.storage.getAlarm());
    expect([failures, fault.state.taken]).toEqual([3, 3]);
    expect(alarm! - Date.now()).toBeLessThanOrEqual(retryDelay(OPERATIONS.move.policy, failures));
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "freezing", attempts: 3, error: expect.stringMatching(/^internal/) });
    await drive(t.mind.id);
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "done", attempts: 0, to });
    expect((await mindState(t.mind.id)).counts.memories).toBe(1);
  });

  it("waits out the directory cache's bound after a move's switch with its alarm set for the bound's end, taking no step before it", async () => {
    const t = await newTenant();
    await store({ token: t.token, mind: t.mind.id }, { key: "tea", content: "Likes tea" });
    const from = (await env.DB.prepare("select shard from minds where id = ?").bind(t.mind.id).first<{ shard: string }>())!.shard;
    const to = from === "DB" ? "SHARD_1" : "DB";
    const oldCopyWrites = async () =>
      (await (env as unknown as Record<string, D1Database>)[from]!.prepare("select writes from minds where id = ?").bind(t.mind.id).first<{ writes: string }>())?.writes;
    const alarmOf = () => runInDurableObject(objectOf(t.mind.id), (_instance, state) => state.storage.getAlarm());
    await startMove(testDeps(), t.mind.id, to);
    await startOperation(objects, { kind: "move", mindId: t.mind.id });
    // The object's own alarm runs the move to its switch, then sets the alarm for the end of the bound.
    let boundEnds = 0;
    await until(async () => {
      const switchedAt = await env.DB.prepare("select switched_at from mind_moves where mind_id = ?").bind(t.mind.id).first<string | null>("switched_at");
      if (!switchedAt) return false;
      boundEnds = Date.parse(switchedAt) + DIRECTORY_TTL_MS;
      return (await alarmOf()) === boundEnds;
    });
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "switched", to });
    expect(await oldCopyWrites()).toBe("moving");
    // Woken early (its alarm run now), it takes no step and sets the same alarm again.
    await runDurableObjectAlarm(objectOf(t.mind.id));
    expect(await alarmOf()).toBe(boundEnds);
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "switched", attempts: 0 });
    expect(await oldCopyWrites()).toBe("moving");
    // Past the bound the old copy is erased and the move ends.
    await drive(t.mind.id);
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "done", to });
    expect(await oldCopyWrites()).toBe(from === "DB" ? "elsewhere" : undefined);
    expect((await mindState(t.mind.id)).counts.memories).toBe(1);
  });

  it("finishes an erasure whose request run failed: the progress at first, then the counts", async () => {
    const t = await newTenant();
    await store({ token: t.token, mind: t.mind.id }, { key: "tea", content: "Likes tea" });
    const fault = faults();
    await underFaults(t.mind.id, fault);
    fault.state.broken = true;
    const first = await eraseMind({ ...testDeps(), ...objects }, t.accountId, t.mind.id);
    expect(first).toMatchObject({ deleted: { minds: 1, memories: 1 }, finished: false, left: { memories: 1 } });
    // The mind is gone for every reader meanwhile.
    expect((await call("GET", `/minds/${t.mind.id}`, { token: t.token })).status).toBe(404);
    fault.state.broken = false;
    await drive(t.mind.id);
    expect((await mindState(t.mind.id)).counts).toMatchObject({ minds: 0, memories: 0 });
    expect(await eraseMind({ ...testDeps(), ...objects }, t.accountId, t.mind.id)).toEqual({ deleted: expect.objectContaining({ minds: 1, memories: 1 }), finished: true });
  });

  it("answers a second operation: the same one wakes it, an erasure goes first, a full queue is a 409", async () => {
    const t = await newTenant();
    const fault = faults();
    await underFaults(t.mind.id, fault);
    // Every run fails, so the queue stays as it is while the test looks at it.
    fault.state.broken = true;
    const imports = ["imp_a", "imp_b", "imp_c", "imp_d"].map((importId): OperationRef => ({ kind: "import", mindId: t.mind.id, importId }));
    for (const ref of imports) await startOperation(objects, ref);
    await startOperation(objects, imports[0]!);
    expect(await objectOf(t.mind.id).pending()).toEqual(imports);
    const refused = await startOperation(objects, { kind: "move", mindId: t.mind.id }).then(() => null, (err: unknown) => err);
    expect(refused).toMatchObject({ code: "conflict", message: expect.stringMatching(/too many operations waiting/) });
    await startOperation(objects, { kind: "erase", mindId: t.mind.id });
    expect((await objectOf(t.mind.id).pending()).map((ref) => ref.kind)).toEqual(["erase", "import", "import", "import", "import"]);
    // Healed, the imports find no import and end; the erasure finds none recorded and ends too.
    fault.state.broken = false;
    await drive(t.mind.id);
    expect((await mindState(t.mind.id)).counts.minds).toBe(1);
  });

  it("runs an operation once more when it is asked for again while it runs, rather than dropping the new request", async () => {
    const t = await newTenant();
    const ref: OperationRef = { kind: "move", mindId: t.mind.id };
    const runs: number[] = [];
    const run = OPERATIONS.move.run;
    // The first run is asked for again half-way (a new move claimed while the last one finishes).
    OPERATIONS.move.run = async () => {
      runs.push(runs.length + 1);
      if (runs.length === 1) await objectOf(t.mind.id).start(ref);
      return false;
    };
    try {
      await startOperation(objects, ref);
      await drive(t.mind.id);
    } finally {
      OPERATIONS.move.run = run;
    }
    expect(runs).toEqual([1, 2]);
    expect(await objectOf(t.mind.id).pending()).toEqual([]);
  });

  it("answers an import its archiveImport when the mind's queue is full, so the caller can follow it", async () => {
    const s = await archiveAndTarget();
    const fault = faults();
    await underFaults(s.target, fault);
    fault.state.broken = true;
    for (const importId of ["imp_a", "imp_b", "imp_c", "imp_d"]) await startOperation(objects, { kind: "import", mindId: s.target, importId });
    const archiveImport = await importMind({ ...testDeps(), ...objects }, s.accountId, s.target, s.archive);
    expect(archiveImport).toMatchObject({ mind_id: s.target, state: "queued" });
    expect((await objectOf(s.target).pending()).map((ref) => ("importId" in ref ? ref.importId : ref.kind))).toEqual(["imp_a", "imp_b", "imp_c", "imp_d"]);
  });

  it("refuses through the domain what may not run beside an import: a move is 409, a second import 409", async () => {
    const s = await archiveAndTarget();
    const archiveImport = await accept(s.accountId, s.target, s.archive);
    const from = (await env.DB.prepare("select shard from minds where id = ?").bind(s.target).first<{ shard: string }>())!.shard;
    const move = await call("POST", `/shards/${from === "DB" ? "SHARD_1" : "DB"}/minds`, { token: ADMIN_TOKEN, body: { mind_id: s.target } });
    const again = await call("POST", `/minds/${s.target}/import`, { token: s.token, rawBody: s.archive, headers: { "Content-Type": "application/x-ndjson" } });
    expect([move.status, again.status]).toEqual([409, 409]);
    await startOperation(objects, { kind: "import", mindId: s.target, importId: archiveImport.id });
    await drive(s.target);
    expect((await importState(s.target, archiveImport.id)).state).toBe("done");
  });

  it("goes on with a move it stored before it ran every operation", async () => {
    const t = await newTenant();
    const from = (await env.DB.prepare("select shard from minds where id = ?").bind(t.mind.id).first<{ shard: string }>())!.shard;
    const to = from === "DB" ? "SHARD_1" : "DB";
    await startMove(testDeps(), t.mind.id, to);
    // As the object stored a move until now: the mind's id under "mind", an alarm set.
    await runInDurableObject(objectOf(t.mind.id), async (_instance, state) => {
      state.storage.kv.put("mind", t.mind.id);
      await state.storage.setAlarm(Date.now());
    });
    await drive(t.mind.id);
    expect(await moveProgress(testDeps(), t.mind.id)).toMatchObject({ state: "done", to });
  });

  it("resumes an import that no object writes any more (its import object deleted by a deploy) from the daily retention", async () => {
    const s = await archiveAndTarget();
    // Accepted, then left: the object that was to write it is gone, and the import stopped moving.
    const archiveImport = await accept(s.accountId, s.target, s.archive);
    const stalled = new Date(Date.now() - 60 * 60_000).toISOString();
    await (await dataOf(s.target)).prepare("update imports set updated_at = ? where id = ?").bind(stalled, archiveImport.id).run();
    const { counts } = await runJobNow(workDeps(), "retention");
    expect(counts.imports_resumed).toBeGreaterThanOrEqual(1);
    await drive(s.target);
    expect(await importState(s.target, archiveImport.id)).toEqual({ state: "done", error_code: null });
    expect((await mindState(s.target)).counts.memories).toBe(3);
  });

  it("resumes a stalled import its owner follows, and leaves one that moves alone", async () => {
    const s = await archiveAndTarget();
    const archiveImport = await accept(s.accountId, s.target, s.archive);
    const follow = () => call("GET", `/minds/${s.target}/import/${archiveImport.id}`, { token: s.token });
    // Touched just now: it is taken to be written by an object, and following it wakes nothing.
    expect((await follow()).json).toMatchObject({ id: archiveImport.id, state: "queued" });
    expect(await objectOf(s.target).pending()).toEqual([]);
    const stalled = new Date(Date.now() - 60 * 60_000).toISOString();
    await (await dataOf(s.target)).prepare("update imports set updated_at = ? where id = ?").bind(stalled, archiveImport.id).run();
    expect((await follow()).json).toMatchObject({ id: archiveImport.id, state: "queued" });
    await drive(s.target);
    expect((await follow()).json).toMatchObject({ state: "done", counts: { memories: 3 } });
  });
});

import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import type { Deps } from "../../src/deps";
import { SCHEDULE } from "../../src/jobs";
import { recordUsage } from "../../src/llm/ledger";
import { abandonMove, advanceMove, isMoveRunning, moveProgress, startMove } from "../../src/portability/move/move";
import { countMindRows, MIND_TABLES, type RowBounds } from "../../src/portability/move/shard-rows";
import { runCron } from "../../src/queue/schedule";
import { ADMIN_TOKEN, call, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { depsOfMind, testDeps } from "../support/deps";
import { checkEachFault, type FaultMode, type FaultPlan, faultPoints, faultSample, faultyD1 } from "../support/faulty-d1";
import { freshDatabases } from "../support/fresh-databases";
import { mindState } from "../support/mind-state";
import { passMoveFence } from "../support/moves";

// Its jobs sweep every mind of both shards, a bounded number a run: it starts from empty databases.
beforeAll(freshDatabases);

type Auth = { token: string; mind: string };
const database = (name: string) => (env as unknown as Record<string, D1Database>)[name]!;
const other = (name: string) => (name === "DB" ? "SHARD_1" : "DB");

async function shardOf(mindId: string): Promise<{ shard: string; writes: string; moving_to: string | null }> {
  return (await env.DB.prepare("select shard, writes, moving_to from minds where id = ?").bind(mindId).first())!;
}

/** A mind with rows in every table a mind's data has. */
async function filledMind(small = false): Promise<Auth & { accountId: string }> {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  const kept = await store(auth, { key: "coffee", content: "Любит кофе без сахара", tags: ["coffee"] });
  await call("PUT", `/memory/${kept.id}`, { ...auth, body: { content: "Любит кофе с молоком" } });
  const s = await openSession(auth, { task_name: "deploy" });
  await append(auth, s.id, { content: "Deploy the worker on Friday" });
  await append(auth, s.id, { role: "tool", content: "wrangler output", ephemeral: true, tool: "shell" });
  await call("POST", "/notes", { ...auth, body: { text: "Prefers short answers", session_id: s.id } });
  await call("PUT", "/cold", { ...auth, body: { text: "## About\n- likes coffee", version: 0 } });
  if (!small) {
    await append(auth, s.id, { role: "assistant", content: "Deployed" });
    const second = await openSession(auth, { task_name: "review", chat: "ops" });
    await append(auth, second.id, { content: "Review the PR" });
    await call("POST", "/notes", { ...auth, body: { text: "Uses pnpm", category_hint: "project" } });
    await call("POST", "/cold/consolidations", { ...auth, body: {} });
  }
  const deps = await depsOfMind(auth.mind);
  await recordUsage(deps, { mindId: auth.mind }, "chat", { inputTokens: 10, outputTokens: 5 }, false);
  const now = new Date().toISOString();
  const db = await deps.shard.$client;
  await db.batch([
    db.prepare("insert into embeddings (kind, row_id, mind_id, state, attempts, next_attempt_at, updated_at) values ('memory', ?, ?, 'done', 0, ?, ?)").bind(kept.id, auth.mind, now, now),
    db.prepare("insert into note_extractions (mind_id, session_id, after_message_id, through_message_id, agent, note_count, created_at) values (?, ?, '', '1', 'default', 1, ?)").bind(auth.mind, s.id, now),
    // A webhook with an event it was sent once (written here: a webhook made through the API would deliver in the background).
    db.prepare("insert into event_streams (mind_id, last) values (?, 1)").bind(auth.mind),
    db.prepare("insert into events (id, mind_id, sequence, type, agent, occurred_at, data) values (?, ?, 1, 'memory.updated', 'default', ?, '{}')").bind(`evt_${auth.mind}`, auth.mind, now),
    db.prepare("insert into webhooks (id, mind_id, url, types, secret, enabled, cursor, failures, next_attempt_at, created_at, updated_at) values (?, ?, 'https://receiver.test/', '[]', 'v1.x.y', 1, 1, 0, ?, ?, ?)").bind(`whk_${auth.mind}`, auth.mind, now, now, now),
    db.prepare("insert into webhook_attempts (mind_id, webhook_id, event_id, sequence, type, status, ok, duration_ms, at) values (?, ?, ?, 1, 'memory.updated', 200, 1, 5, ?)").bind(auth.mind, `whk_${auth.mind}`, `evt_${auth.mind}`, now),
  ]);
  return { ...auth, accountId: t.accountId };
}

/** The mind's export with message ids replaced by their order, and without the export's time. */
async function exported(auth: Auth): Promise<unknown[]> {
  const res = await call("GET", `/minds/${auth.mind}/export`, { token: auth.token });
  expect(res.status).toBe(200);
  const lines = res.text.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  const order = new Map<unknown, number>();
  for (const line of lines) if (line.type === "message") order.set(line.id, order.size + 1);
  // A cursor names the last message read: by its order, or the last one before it when it was trimmed.
  const byOrder = (cursor: number) => [...order].filter(([id]) => Number(id) <= cursor).at(-1)?.[1] ?? 0;
  return lines.map((line) => {
    if (line.type === "header") return { ...line, exported_at: null };
    if (line.type === "message") return { ...line, id: order.get(line.id) };
    if (line.type === "session") return { ...line, extracted_through_message_id: byOrder(Number(line.extracted_through_message_id)) };
    return line;
  });
}

const rowsIn = (shard: string, mindId: string) => countMindRows(createDb(database(shard)), mindId);
const noRows = Object.fromEntries(MIND_TABLES.map((t) => [t, 0]));

async function moveTo(shard: string, mindId: string) {
  return call("POST", `/shards/${shard}/minds`, { token: ADMIN_TOKEN, body: { mind_id: mindId } });
}

describe("placing new minds", () => {
  it("puts each new mind on the shard that holds the fewest", async () => {
    const token = (await newTenant()).token;
    for (let i = 0; i < 4; i++) {
      const before = (await call("GET", "/shards", { token: ADMIN_TOKEN })).json.shards as { name: string; minds: number }[];
      expect(before.map((s) => s.name)).toEqual(["DB", "SHARD_1"]);
      const emptiest = before.reduce((a, b) => (b.minds < a.minds ? b : a)).name;
      const mind = await newMind(token);
      expect((await shardOf(mind.id)).shard).toBe(emptiest);
    }
    const after = (await call("GET", "/shards", { token: ADMIN_TOKEN })).json.shards as { minds: number }[];
    expect(Math.abs(after[0]!.minds - after[1]!.minds)).toBeLessThanOrEqual(1);
  });

  it("the shard routes are for the operator only", async () => {
    const t = await newTenant();
    expect((await call("GET", "/shards")).status).toBe(401);
    expect((await call("GET", "/shards", { token: t.token })).status).toBe(403);
    expect((await call("POST", "/shards/SHARD_1/minds", { token: t.token, body: { mind_id: t.mind.id } })).status).toBe(403);
    expect((await moveTo("SHARD_9", t.mind.id)).status).toBe(400);
    expect((await moveTo("SHARD_1", "mind_missing")).status).toBe(404);
  });
});

/** Starts the move and runs its steps here, to the end (as the mind's operations object would, its wait after the switch passed at once). */
async function driveMove(deps: Deps, mindId: string, to: string, bounds?: RowBounds) {
  await startMove(deps, mindId, to);
  return finishMove(deps, mindId, bounds);
}

async function finishMove(deps: Deps, mindId: string, bounds?: RowBounds) {
  let state = await advanceMove(deps, mindId, bounds);
  for (let steps = 0; isMoveRunning(state); steps++) {
    if (steps > 5_000) throw new Error(`the move never ended: ${state}`);
    if (state === "switched") await passMoveFence(mindId);
    state = await advanceMove(deps, mindId, bounds);
  }
  return state;
}

/** Polls the move's progress until it ends, as an operator would; its wait after the switch is passed at once, and the move woken. */
async function untilFinished(mindId: string) {
  for (let i = 0; i < 400; i++) {
    const res = await call("GET", `/shards/moves/${mindId}`, { token: ADMIN_TOKEN });
    expect(res.status, res.text).toBe(200);
    if (!isMoveRunning(res.json.state)) return res.json;
    if (await passMoveFence(mindId)) await moveTo(res.json.to, mindId);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the move did not end");
}

describe("jobs across shards", () => {
  it("the hourly consolidation and the daily collection and retention reach minds on both shards", async () => {
    const t = await newTenant();
    const minds: Auth[] = [{ token: t.token, mind: t.mind.id }];
    while (new Set(await Promise.all(minds.map(async (m) => (await shardOf(m.mind)).shard))).size < 2) {
      minds.push({ token: t.token, mind: (await newMind(t.token)).id });
    }
    for (const auth of minds) await call("POST", "/notes", { ...auth, body: { text: `Lives on ${auth.mind}`, category_hint: "profile" } });
    // One hourly run enqueues every namespace with waiting notes on every shard; the Worker's
    // queue() consumer folds them.
    const folded = async () => (await Promise.all(minds.map(async (auth) => (await call("GET", "/cold", auth)).json.version))).every((v) => v === 1);
    const runs = await runCron(SCHEDULE, "0 * * * *", env);
    expect(runs.find((r) => r.job === "consolidation")!.error).toBeNull();
    await vi.waitFor(async () => expect(await folded()).toBe(true), { timeout: 30_000, interval: 200 });
    for (const auth of minds) {
      const cold = (await call("GET", "/cold", auth)).json;
      expect(cold.version, (await shardOf(auth.mind)).shard).toBe(1);
      expect(cold.text).toContain(`Lives on ${auth.mind}`);
    }
    const daily = await runCron(SCHEDULE, "30 3 * * *", env);
    expect(daily.map((r) => r.error)).toEqual([null, null]);
    // Retention is one message per database.
    expect(daily.find((r) => r.job === "retention")!.counts.enqueued).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe("moving a mind between shards", () => {
  it("runs in the background and reads back identically on the new shard; the old one keeps no row of it (both ways)", async () => {
    const auth = await filledMind();
    const home = (await shardOf(auth.mind)).shard;
    const before = await exported(auth);
    const counts = await rowsIn(home, auth.mind);
    for (const table of MIND_TABLES) expect(counts[table], table).toBeGreaterThan(0);

    for (const to of [other(home), home]) {
      const from = (await shardOf(auth.mind)).shard;
      const started = await moveTo(to, auth.mind);
      expect(started.status, started.text).toBe(202);
      expect(started.json).toMatchObject({ mind_id: auth.mind, from, to, error: null });
      const moved = await untilFinished(auth.mind);
      expect(moved).toMatchObject({ state: "done", rows: { from: noRows, to: counts }, error: null });
      expect(moved.finished_at).not.toBeNull();
      expect(await shardOf(auth.mind)).toEqual({ shard: to, writes: to === "DB" ? "open" : "elsewhere", moving_to: null });
      expect(await rowsIn(to, auth.mind)).toEqual(counts);
      expect(await rowsIn(from, auth.mind)).toEqual(noRows);
      if (from !== "DB") expect(await database(from).prepare("select count(*) as n from minds where id = ?").bind(auth.mind).first()).toEqual({ n: 0 });
      expect(await database(to).prepare("select count(*) as n from mind_copy_cursors where mind_id = ?").bind(auth.mind).first()).toEqual({ n: 0 });
      // An extraction record keeps its window in the old numbering, marked once however often it moves.
      const windows = await database(to).prepare("select after_message_id, through_message_id from note_extractions where mind_id = ?").bind(auth.mind).all();
      expect(windows.results).toEqual([{ after_message_id: "moved:", through_message_id: "moved:1" }]);
      expect(await exported(auth)).toEqual(before);
    }
    // Search, writes and a second session's history work where it landed.
    const found = await call("GET", "/memory/search?q=кофе", auth);
    expect(found.json.results.map((r: { key: string }) => r.key)).toEqual(["coffee"]);
    expect((await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_move", content: "Written after the move" } })).status).toBe(201);
  });

  it("copies a mind larger than one page in many small steps, renumbering messages and cursors in order", async () => {
    const auth = await filledMind();
    const s = (await call("GET", "/sessions", auth)).json.sessions[0];
    for (let i = 0; i < 7; i++) await append(auth, s.id, { content: `Message ${i}` });
    for (let i = 0; i < 5; i++) await store(auth, { key: `fact_${i}`, content: `Fact ${i}` });
    const deps = testDeps();
    await call("POST", `/sessions/${s.id}/extract`, auth);
    const home = (await shardOf(auth.mind)).shard;
    const before = await exported(auth);
    const state = await mindState(auth.mind);
    let steps = 0;
    await startMove(deps, auth.mind, other(home));
    for (let next = await advanceMove(deps, auth.mind, { rows: 2, bytes: 64 }); isMoveRunning(next); next = await advanceMove(deps, auth.mind, { rows: 2, bytes: 64 })) {
      if (next === "switched") await passMoveFence(auth.mind);
      steps++;
    }
    expect(steps).toBeGreaterThan(20);
    expect((await shardOf(auth.mind)).shard).toBe(other(home));
    expect(await exported(auth)).toEqual(before);
    expect(await mindState(auth.mind)).toEqual(state);
  });

  it("moving a mind to the shard it is on changes nothing, and is recorded as a finished move", async () => {
    const auth = await filledMind(true);
    const home = (await shardOf(auth.mind)).shard;
    const counts = await rowsIn(home, auth.mind);
    const res = await moveTo(home, auth.mind);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ state: "done", from: home, to: home, rows: { from: counts, to: counts } });
    expect(await rowsIn(home, auth.mind)).toEqual(counts);
    const recorded = await call("GET", `/shards/moves/${auth.mind}`, { token: ADMIN_TOKEN });
    expect(recorded.status).toBe(200);
    expect(recorded.json).toMatchObject({ state: "done", from: home, to: home, finished_at: res.json.finished_at });
    // A real move afterwards still starts, and the record then follows it.
    const deps = testDeps();
    await startMove(deps, auth.mind, other(home));
    expect(await finishMove(deps, auth.mind)).toBe("done");
    expect((await call("GET", `/shards/moves/${auth.mind}`, { token: ADMIN_TOKEN })).json).toMatchObject({ state: "done", from: home, to: other(home) });
  });

  it("refuses writes while the mind moves (503 with Retry-After), reads go on from the old copy, and a second move elsewhere is refused", async () => {
    const auth = await filledMind(true);
    const home = (await shardOf(auth.mind)).shard;
    const s = (await call("GET", "/sessions", auth)).json.sessions[0];
    const deps = testDeps();
    await startMove(deps, auth.mind, other(home));
    while ((await advanceMove(deps, auth.mind)) !== "copying");

    const write = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "during_move", content: "Written while moving" } });
    expect(write.status).toBe(503);
    expect(write.json.error.code).toBe("mind_moving");
    expect(Number(write.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await call("POST", `/sessions/${s.id}/messages`, { ...auth, body: { role: "user", content: "hello?" } })).status).toBe(503);
    expect((await call("PUT", "/cold", { ...auth, body: { text: "## About\n- changed", version: 1 } })).status).toBe(503);
    expect((await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { locale: "ru" } })).status).toBe(503);
    const read = await call("GET", "/memory", auth);
    expect(read.status).toBe(200);
    expect(read.json.memories).toHaveLength(1);
    expect((await moveTo(home, auth.mind)).status).toBe(409);
    const progress = await call("GET", `/shards/moves/${auth.mind}`, { token: ADMIN_TOKEN });
    expect(progress.json).toMatchObject({ state: "copying", from: home, to: other(home) });
    expect((await call("GET", "/shards", { token: ADMIN_TOKEN })).json.shards.find((x: { name: string }) => x.name === other(home)).incoming).toBeGreaterThanOrEqual(1);

    expect(await finishMove(deps, auth.mind)).toBe("done");
    const after = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_move", content: "Written after" } });
    expect(after.status).toBe(201);
    expect((await call("GET", "/memory", auth)).json.memories.map((m: { key: string }) => m.key).sort()).toEqual(["after_move", "coffee"]);
  });

  it("an abandoned move erases its partial copy and the mind takes writes where it was; one past its switch cannot be abandoned", async () => {
    const auth = await filledMind(true);
    const home = (await shardOf(auth.mind)).shard;
    const before = await exported(auth);
    const counts = await rowsIn(home, auth.mind);
    const deps = testDeps();
    await startMove(deps, auth.mind, other(home));
    for (let i = 0; i < 6; i++) await advanceMove(deps, auth.mind);
    const abandoned = await call("DELETE", `/shards/moves/${auth.mind}`, { token: ADMIN_TOKEN });
    expect(abandoned.status, abandoned.text).toBe(202);
    expect(abandoned.json.state).toBe("undoing");
    expect((await untilFinished(auth.mind)).state).toBe("abandoned");
    expect(await shardOf(auth.mind)).toEqual({ shard: home, writes: home === "DB" ? "open" : "elsewhere", moving_to: null });
    expect(await rowsIn(home, auth.mind)).toEqual(counts);
    expect(await rowsIn(other(home), auth.mind)).toEqual(noRows);
    expect(await exported(auth)).toEqual(before);
    expect((await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_abandon", content: "Writable" } })).status).toBe(201);

    await startMove(deps, auth.mind, other(home));
    while ((await advanceMove(deps, auth.mind)) !== "switched");
    expect((await call("DELETE", `/shards/moves/${auth.mind}`, { token: ADMIN_TOKEN })).status).toBe(409);
    expect(await finishMove(deps, auth.mind)).toBe("done");
    expect((await call("DELETE", "/shards/moves/mind_missing", { token: ADMIN_TOKEN })).status).toBe(404);
    expect((await call("GET", "/shards/moves/mind_missing", { token: ADMIN_TOKEN })).status).toBe(404);
  });
});

// Every D1 call of a small mind's move is faulted in turn in the bench (`npm run bench -- faults`);
// here a seeded sample of them, so the suite stays quick on a busy machine.
const SAMPLE = faultSample(12);

describe("a fault at D1 calls of a move", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind stays whole and readable; resumed it lands as a fault-free move does, abandoned it is as it was`, async () => {
      // The D1 calls of a move from each shard (the directory's side differs by a call or so).
      const probe = await filledMind(true);
      const callsFrom: Record<string, number> = {};
      for (let i = 0; i < 2; i++) {
        const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
        const from = (await shardOf(probe.mind)).shard;
        await driveMove(testDeps({ wrap: (d1) => faultyD1(d1, counting) }), probe.mind, other(from));
        callsFrom[from] = counting.calls;
      }
      const calls = Math.max(...Object.values(callsFrom));
      expect(Math.min(...Object.values(callsFrom))).toBeGreaterThan(30);
      // Each fault is taken in the direction the new mind goes from where it was placed, unless that move has fewer calls.
      await checkEachFault(`move, fault ${mode} the call`, calls, faultPoints(calls, SAMPLE, mode === "before" ? 7 : 11), async (failAt) => {
        const auth = await filledMind(true);
        const placed = (await shardOf(auth.mind)).shard;
        if (failAt > callsFrom[placed]!) expect(await driveMove(testDeps(), auth.mind, other(placed))).toBe("done");
        const home = (await shardOf(auth.mind)).shard;
        const before = await exported(auth);
        const counts = await rowsIn(home, auth.mind);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        const where = `fault ${mode} D1 call ${failAt} of ${callsFrom[home]} (from ${home})`;
        await expect(driveMove(testDeps({ wrap: (d1) => faultyD1(d1, plan) }), auth.mind, other(home)), where).rejects.toThrow();
        expect(plan.calls, where).toBe(failAt);
        // Stopped anywhere, the mind reads as it did.
        expect(await exported(auth), where).toEqual(before);
        // Half the faults are followed by resuming the move, half by abandoning it where that is still possible.
        const progress = await moveProgress(testDeps(), auth.mind);
        const abandon = failAt % 2 === 0 && progress !== null && ["freezing", "preparing", "copying", "switching", "undoing"].includes(progress.state);
        if (abandon) await abandonMove(testDeps(), auth.mind);
        if (progress === null || !isMoveRunning(progress.state)) await startMove(testDeps(), auth.mind, other(home));
        const ended = await finishMove(testDeps(), auth.mind);
        const landed = ended === "done" ? other(home) : home;
        expect(ended, where).toBe(abandon ? "abandoned" : "done");
        expect(await shardOf(auth.mind), where).toEqual({ shard: landed, writes: landed === "DB" ? "open" : "elsewhere", moving_to: null });
        expect(await rowsIn(landed, auth.mind), where).toEqual(counts);
        expect(await rowsIn(other(landed), auth.mind), where).toEqual(noRows);
        expect(await exported(auth), where).toEqual(before);
        const write = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_fault", content: "Still writable" } });
        expect(write.status, where).toBe(201);
      });
    }, 3_600_000);
  }
});


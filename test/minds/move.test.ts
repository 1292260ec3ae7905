import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { recordUsage } from "../../src/llm/ledger";
import { runCron } from "../../src/cron/schedule";
import { moveMind } from "../../src/minds/move";
import { countMindRows, MIND_TABLES } from "../../src/minds/shard-rows";
import { ADMIN_TOKEN, call, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { depsOfMind, testDeps } from "../support/deps";
import { faultyD1, type FaultMode, type FaultPlan } from "../support/faulty-d1";

type Auth = { token: string; mind: string };
const SHARDS = ["DB", "SHARD_1"] as const;
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
  await recordUsage(deps, auth.mind, "chat", { inputTokens: 10, outputTokens: 5 }, false);
  const now = new Date().toISOString();
  const db = await deps.db.$client;
  await db.batch([
    db.prepare("insert into embeddings (kind, row_id, mind_id, state, attempts, next_attempt_at, updated_at) values ('memory', ?, ?, 'done', 0, ?, ?)").bind(kept.id, auth.mind, now, now),
    db.prepare("insert into note_extractions (mind_id, session_id, after_message_id, through_message_id, agent, note_count, created_at) values (?, ?, '', '1', 'default', 1, ?)").bind(auth.mind, s.id, now),
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
    expect((await call("GET", "/shards", { token: t.token })).status).toBe(401);
    expect((await call("POST", "/shards/SHARD_1/minds", { token: t.token, body: { mind_id: t.mind.id } })).status).toBe(401);
    expect((await moveTo("SHARD_9", t.mind.id)).status).toBe(400);
    expect((await moveTo("SHARD_1", "mind_missing")).status).toBe(404);
  });
});

describe("moving a mind between shards", () => {
  it("reads back identically on the new shard, and the old one keeps no row of it (both ways)", async () => {
    const auth = await filledMind();
    const home = (await shardOf(auth.mind)).shard;
    const before = await exported(auth);
    const counts = await rowsIn(home, auth.mind);
    for (const table of MIND_TABLES) expect(counts[table], table).toBeGreaterThan(0);

    for (const to of [other(home), home]) {
      const from = (await shardOf(auth.mind)).shard;
      const moved = await moveTo(to, auth.mind);
      expect(moved.status, moved.text).toBe(200);
      expect(moved.json).toMatchObject({ mind_id: auth.mind, from, to, copied: counts });
      expect(moved.json.erased).toMatchObject(counts);
      expect(await shardOf(auth.mind)).toEqual({ shard: to, writes: to === "DB" ? "open" : "elsewhere", moving_to: null });
      expect(await rowsIn(to, auth.mind)).toEqual(counts);
      expect(await rowsIn(from, auth.mind)).toEqual(noRows);
      if (from !== "DB") expect(await database(from).prepare("select count(*) as n from minds where id = ?").bind(auth.mind).first()).toEqual({ n: 0 });
      expect(await exported(auth)).toEqual(before);
    }
    // Search, writes and a second session's history work where it landed.
    const found = await call("GET", "/memory/search?q=кофе", auth);
    expect(found.json.results.map((r: { key: string }) => r.key)).toEqual(["coffee"]);
    expect((await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_move", content: "Written after the move" } })).status).toBe(201);
  });

  it("moving a mind to the shard it is on changes nothing", async () => {
    const auth = await filledMind(true);
    const home = (await shardOf(auth.mind)).shard;
    const counts = await rowsIn(home, auth.mind);
    const res = await moveTo(home, auth.mind);
    expect(res.status).toBe(200);
    expect(res.json.copied).toEqual(counts);
    expect(await rowsIn(home, auth.mind)).toEqual(counts);
  });

  it("refuses writes while the mind moves (503 with Retry-After), and reads go on from the old copy", async () => {
    const auth = await filledMind(true);
    const home = (await shardOf(auth.mind)).shard;
    const s = (await call("GET", "/sessions", auth)).json.sessions[0];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let paused!: () => void;
    const reached = new Promise<void>((resolve) => (paused = resolve));
    // The move stops at its fifth D1 call: the mind is marked moving and its rows closed to writes.
    let calls = 0;
    const wrap = (d1: D1Database) =>
      new Proxy(d1, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (prop !== "batch" && prop !== "prepare") return typeof value === "function" ? value.bind(target) : value;
          if (prop === "batch") {
            return async (statements: D1PreparedStatement[]) => {
              if (++calls === 5) (paused(), await gate);
              return target.batch(statements);
            };
          }
          return (query: string) => pausing(target.prepare(query));
        },
      });
    const pausing = (statement: D1PreparedStatement): D1PreparedStatement =>
      new Proxy(statement, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (prop === "bind") return (...values: unknown[]) => pausing(target.bind(...values));
          if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
            return async (...args: unknown[]) => {
              if (++calls === 5) (paused(), await gate);
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          }
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const moving = moveMind(testDeps({ wrap }), auth.mind, other(home));
    await reached;

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

    release();
    expect((await moving).to).toBe(other(home));
    const after = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_move", content: "Written after" } });
    expect(after.status).toBe(201);
    expect((await call("GET", "/memory", auth)).json.memories.map((m: { key: string }) => m.key).sort()).toEqual(["after_move", "coffee"]);
  });
});

describe("a fault at each D1 call of a move", () => {
  for (const mode of ["before", "after"] as FaultMode[]) {
    it(`fault ${mode} the call: the mind stays whole on one shard, writable, with no row lost or doubled`, async () => {
      const counting: FaultPlan = { failAt: Infinity, mode, calls: 0 };
      const probe = await filledMind(true);
      await moveMind(testDeps({ wrap: (d1) => faultyD1(d1, counting) }), probe.mind, other((await shardOf(probe.mind)).shard));
      const calls = counting.calls;
      expect(calls).toBeGreaterThan(30);

      // Every call of the claim, the freeze and the switch's neighbourhood is cheap to cover; the
      // copy's many alike calls are sampled, so the test stays within minutes on a busy machine.
      const stride = Math.ceil(calls / 12);
      const points = [...new Set([1, 2, 3, 4, 5, ...Array.from({ length: calls }, (_, i) => i + 1).filter((n) => n % stride === 0), calls - 16, calls - 15, calls - 1, calls])];
      for (const failAt of points.filter((n) => n >= 1 && n <= calls)) {
        const auth = await filledMind(true);
        const home = (await shardOf(auth.mind)).shard;
        const before = await exported(auth);
        const counts = await rowsIn(home, auth.mind);
        const plan: FaultPlan = { failAt, mode, calls: 0 };
        await moveMind(testDeps({ wrap: (d1) => faultyD1(d1, plan) }), auth.mind, other(home)).catch(() => null);
        const where = `fault ${mode} D1 call ${failAt} of ${calls}`;
        let state = await shardOf(auth.mind);
        // A move that could not be undone is resumed by moving it again.
        if (state.moving_to !== null) {
          expect((await moveTo(state.moving_to, auth.mind)).status, where).toBe(200);
          state = await shardOf(auth.mind);
        }
        expect(state.moving_to, where).toBeNull();
        const left = SHARDS.filter((s) => s !== state.shard)[0]!;
        expect(await rowsIn(state.shard, auth.mind), where).toEqual(counts);
        expect(await rowsIn(left, auth.mind), where).toEqual(noRows);
        expect(await exported(auth), where).toEqual(before);
        const write = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "after_fault", content: "Still writable" } });
        expect(write.status, where).toBe(201);
      }
    }, 600_000);
  }
});

describe("jobs across shards", () => {
  it("the hourly consolidation and the daily collection and retention reach minds on both shards", async () => {
    const t = await newTenant();
    const minds: Auth[] = [{ token: t.token, mind: t.mind.id }];
    while (new Set(await Promise.all(minds.map(async (m) => (await shardOf(m.mind)).shard))).size < 2) {
      minds.push({ token: t.token, mind: (await newMind(t.token)).id });
    }
    for (const auth of minds) await call("POST", "/notes", { ...auth, body: { text: `Lives on ${auth.mind}`, category_hint: "profile" } });
    // Each run takes a bounded number of namespaces from each shard in turn, the longest waiting
    // first: the notes other tests of this file left wait too, so it may take a few runs.
    const folded = async () => (await Promise.all(minds.map(async (auth) => (await call("GET", "/cold", auth)).json.version))).every((v) => v === 1);
    for (let run = 0; run < 10 && !(await folded()); run++) {
      const runs = await runCron("0 * * * *", env);
      expect(runs.find((r) => r.job === "consolidation")!.error).toBeNull();
    }
    for (const auth of minds) {
      const cold = (await call("GET", "/cold", auth)).json;
      expect(cold.version, (await shardOf(auth.mind)).shard).toBe(1);
      expect(cold.text).toContain(`Lives on ${auth.mind}`);
    }
    const daily = await runCron("30 3 * * *", env);
    expect(daily.map((r) => r.error)).toEqual([null, null]);
    expect(String(daily.find((r) => r.job === "retention")!.counts.optimize)).toMatch(/^DB: .*; SHARD_1: /);
  });
});

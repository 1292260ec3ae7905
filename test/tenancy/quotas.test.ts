import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { storeMemory } from "../../src/memory/memories";
import { updateCold } from "../../src/notes/cold-memory";
import { addNote } from "../../src/notes/notes";
import { writeAppend } from "../../src/sessions/history";
import { call, followImport, newKey, newMind, newTenant, store, unique } from "../helpers";
import { append, countRows, openSession, patchSettings } from "../sessions/session-helpers";
import { contextOfMind, depsOfMind, inMind, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { runNow } from "../support/jobs";
import { coldOf, consolidate, consolidationsOf, newNotesMind, storedNotes, versionsOf } from "../support/long-term";
import { connectMcp } from "../support/mcp";
import { scriptedModel, useObjectModel } from "../support/scripted-model";
import { dataOf } from "../support/shards";

// The hourly job sweeps every mind and it reads its latest run: it starts from empty databases.
beforeAll(freshDatabases);

/** The usage row the triggers keep, beside the same figures counted from the tables. */
async function usageAndTruth(mindId: string) {
  const db = await dataOf(mindId);
  const usage = await db.prepare("select memories, notes, bytes from mind_usage where mind_id = ?").bind(mindId).first();
  const truth = await db.prepare(
    `select (select count(*) from memories where mind_id = ?1) as memories,
            (select count(*) from notes where mind_id = ?1) as notes,
            (select coalesce(sum(length(cast(key as blob)) + length(cast(content as blob)) + length(cast(tags as blob))), 0) from memories where mind_id = ?1)
            + (select coalesce(sum(length(cast(text as blob))), 0) from notes where mind_id = ?1)
            + (select coalesce(sum(length(cast(content as blob))), 0) from messages where mind_id = ?1)
            + (select coalesce(sum(length(cast(text as blob))), 0) from cold_versions where mind_id = ?1) as bytes`,
  )
    .bind(mindId)
    .first();
  return { usage, truth };
}

/** A D1 whose batches wait until `parties` of them are waiting, then all go on. */
function meetingD1(real: D1Database, parties: number): D1Database {
  let waiting: (() => void)[] = [];
  const meet = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      if (waiting.length < parties) return;
      for (const go of waiting) go();
      waiting = [];
    });
  return {
    prepare: (query: string) => real.prepare(query),
    batch: async (statements: D1PreparedStatement[]) => {
      await meet();
      return real.batch(statements);
    },
    exec: (query: string) => real.exec(query),
  } as unknown as D1Database;
}

/** A D1 that runs `meanwhile` once, just before the first batch ending with a quota's guard. */
function writeBeforeGuardedBatch(real: D1Database, meanwhile: () => Promise<unknown>): D1Database {
  let pending = true;
  class Tapped {
    constructor(
      readonly real: D1PreparedStatement,
      readonly query: string,
    ) {}
    bind = (...values: unknown[]) => new Tapped(this.real.bind(...values), this.query);
    first = (column?: string) => (column === undefined ? this.real.first() : this.real.first(column));
    run = () => this.real.run();
    all = () => this.real.all();
    raw = (options?: { columnNames?: boolean }) => (options?.columnNames ? this.real.raw({ columnNames: true }) : this.real.raw());
  }
  return {
    prepare: (query: string) => new Tapped(real.prepare(query), query),
    batch: async (statements: Tapped[]) => {
      if (pending && statements.at(-1)?.query.includes("quota_guard")) {
        pending = false;
        await meanwhile();
      }
      return real.batch(statements.map((s) => s.real));
    },
    exec: (query: string) => real.exec(query),
  } as unknown as D1Database;
}

const tenant = async (settings: Record<string, number>) => {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  await patchSettings(auth, settings);
  return { ...t, auth };
};

function expectQuota(res: { status: number; json: any; text: string }, setting: string) {
  expect(res.status, res.text).toBe(403);
  expect(res.json.error.code).toBe("quota_exceeded");
  expect(res.json.error.message).toContain(setting);
}

describe("per-mind quotas", () => {
  it("every mind starts with the default quotas in its settings", async () => {
    const t = await newTenant();
    const mind = await call("GET", `/minds/${t.mind.id}`, { token: t.token });
    expect(mind.json.settings).toMatchObject({ max_memories: 100_000, max_notes: 100_000, max_bytes: 256 * 1024 * 1024 });
    const tooHigh = await call("PATCH", `/minds/${t.mind.id}`, { token: t.token, body: { settings: { max_memories: 10_000_000 } } });
    expect(tooHigh.status).toBe(400);
  });

  it("max_memories refuses a new memory from REST and MCP, still lets one be updated in place, and frees up on delete", async () => {
    const t = await tenant({ max_memories: 2 });
    const first = await store(t.auth, { key: "one", content: "first" });
    await store(t.auth, { key: "two", content: "second" });
    expectQuota(await call("POST", "/memory", { ...t.auth, body: { category: "fact", key: "three", content: "third" } }), "max_memories");
    const updated = await call("POST", "/memory", { ...t.auth, body: { category: "fact", key: "one", content: "first, changed" } });
    expect(updated.status).toBe(200);

    const { key } = await newKey(t.token, t.mind.id);
    const client = await connectMcp(key);
    const viaMcp = (await client.callTool({ name: "memory_store", arguments: { category: "fact", key: "four", content: "fourth" } })) as CallToolResult;
    expect(viaMcp.isError).toBe(true);
    expect(JSON.stringify(viaMcp.content)).toContain("max_memories");
    await client.close();

    expect((await call("DELETE", `/memory/${first.id}`, t.auth)).status).toBe(204);
    expect((await call("POST", "/memory", { ...t.auth, body: { category: "fact", key: "three", content: "third" } })).status).toBe(201);
    const { usage, truth } = await usageAndTruth(t.mind.id);
    expect(usage).toEqual(truth);
    expect(usage).toMatchObject({ memories: 2 });
  });

  it("writes made at the same time cannot both take the last free slot of max_memories or max_notes", async () => {
    const t = await tenant({ max_memories: 3, max_notes: 3 });
    await store(t.auth, { key: "one", content: "first" });
    await store(t.auth, { key: "two", content: "second" });
    await call("POST", "/notes", { ...t.auth, body: { text: "note one" } });
    await call("POST", "/notes", { ...t.auth, body: { text: "note two" } });
    // Every racer has passed the quota check before any of them writes.
    const racing = 6;
    const mindContext = await inMind(testDeps({ wrap: (d1) => meetingD1(d1, racing) }), { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId } });
    const memories = await Promise.allSettled(
      Array.from({ length: racing }, (_, i) => storeMemory(mindContext, { category: "fact", key: `racer_${i}`, content: `racer ${i}` })),
    );
    const notes = await Promise.allSettled(Array.from({ length: racing }, (_, i) => addNote(mindContext, { text: `racing note ${i}` })));
    for (const [results, setting] of [[memories, "max_memories"], [notes, "max_notes"]] as const) {
      expect(results.filter((r) => r.status === "fulfilled"), setting).toHaveLength(1);
      for (const refused of results.filter((r) => r.status === "rejected")) {
        expect(refused.reason).toMatchObject({ code: "quota_exceeded", message: expect.stringContaining(setting) });
      }
    }
    const { usage, truth } = await usageAndTruth(t.mind.id);
    expect(usage).toEqual(truth);
    expect(usage).toMatchObject({ memories: 3, notes: 3 });
  });

  it("cold memory writes made at the same time cannot both take the last free bytes of max_bytes", async () => {
    const text = "- prefers tea\n".repeat(50);
    const t = await tenant({});
    const { usage } = await usageAndTruth(t.mind.id);
    await patchSettings(t.auth, { max_bytes: Number(usage!.bytes) + Math.floor(text.length * 1.5) });
    const deps = testDeps({ wrap: (d1) => meetingD1(d1, 2) });
    const principal = { kind: "human" as const, accountId: t.accountId };
    const writes = await Promise.allSettled(
      ["alpha", "beta"].map(async (agent) => updateCold(await inMind(deps, { mindId: t.mind.id, agent, principal }), { text, version: 0 })),
    );
    expect(writes.filter((w) => w.status === "fulfilled")).toHaveLength(1);
    expect(writes.find((w) => w.status === "rejected")).toMatchObject({ reason: { code: "quota_exceeded", message: expect.stringContaining("max_bytes") } });
    const after = await usageAndTruth(t.mind.id);
    expect(after.usage).toEqual(after.truth);
    expect(after.usage!.bytes).toBe(Number(usage!.bytes) + text.length);
  });

  it("message appends made at the same time in different sessions cannot both take the last free bytes of max_bytes", async () => {
    const content = "a message that takes the last free bytes ".repeat(10);
    const t = await tenant({});
    const sessions = [await openSession(t.auth), await openSession(t.auth)];
    const { usage } = await usageAndTruth(t.mind.id);
    await patchSettings(t.auth, { max_bytes: Number(usage!.bytes) + Math.floor(content.length * 1.5) });
    // What each session's object does, through one D1 whose batches wait for both.
    const deps = await depsOfMind(t.mind.id, { wrap: (d1) => meetingD1(d1, 2) });
    // The settings come with the callers' mind context, read once before.
    const { settings } = (await contextOfMind(t.mind.id)).mind;
    const appends = await Promise.allSettled(
      sessions.map(async (session) => {
        const target = { mindId: t.mind.id, sessionId: session.id };
        return writeAppend(deps, target, { role: "user", content }, { clearEphemeral: false, historyCap: 200, agentFilter: null, settings });
      }),
    );
    expect(appends.filter((a) => a.status === "fulfilled")).toHaveLength(1);
    expect(appends.find((a) => a.status === "rejected")).toMatchObject({ reason: { code: "quota_exceeded", message: expect.stringContaining("max_bytes") } });
    const after = await usageAndTruth(t.mind.id);
    expect(after.usage).toEqual(after.truth);
    expect(after.usage!.bytes).toBe(Number(usage!.bytes) + content.length);
    expect(await countRows("messages", "mind_id", t.mind.id)).toBe(1);
  });

  it("the hourly consolidation of a mind at max_bytes records a quota failure, writes nothing and keeps the notes waiting", async () => {
    const m = await newNotesMind();
    await m.addNote("Keeps a diary in Esperanto", "profile");
    await m.addNote("Prefers trains to planes", "preferences");
    const before = await usageAndTruth(m.mindId);
    await patchSettings(m.auth, { max_bytes: Number(before.usage!.bytes) });

    const counts: Record<string, number | string> = {};
    await runNow("consolidation", testDeps(), counts);
    expect(counts.quota).toBeGreaterThanOrEqual(1);
    const [failed] = await consolidationsOf(m.mindId);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.error).toMatch(/^quota_exceeded: quota reached: max_bytes is \d+/);
    expect(await coldOf(m.mindId)).toMatchObject({ text: "", version: 0 });
    expect(await versionsOf(m.mindId)).toEqual([]);
    expect((await storedNotes(m.mindId)).map((n) => n.consolidationId)).toEqual([null, null]);
    expect(await usageAndTruth(m.mindId)).toEqual(before);

    // With room again, the next run folds both notes.
    await patchSettings(m.auth, { max_bytes: 1024 * 1024 });
    expect(await consolidate(testDeps(), { mindId: m.mindId, agent: "default" })).toMatchObject({ status: "done", foldedNotes: 2 });
  });

  it("a consolidation that races a write past max_bytes is rolled back whole by its batch's guard", async () => {
    const m = await newNotesMind();
    await m.addNote("Keeps a diary in Esperanto", "profile");
    const before = await usageAndTruth(m.mindId);
    await patchSettings(m.auth, { max_bytes: Number(before.usage!.bytes) + 200 });
    // After the consolidation checked the quota and before its batch, a memory takes every free byte.
    const mindContext = await inMind(testDeps(), { mindId: m.mindId, principal: { kind: "human", accountId: m.accountId } });
    const racing = async () => {
      const free = Number(before.usage!.bytes) + 200 - Number((await usageAndTruth(m.mindId)).usage!.bytes);
      // The memory's bytes: its key, its content and its tags ("[]").
      await storeMemory(mindContext, { category: "fact", key: "racer", content: "r".repeat(free - "racer[]".length) });
    };
    const deps = testDeps({ wrap: (d1) => writeBeforeGuardedBatch(d1, racing) });

    const outcome = await consolidate(deps, { mindId: m.mindId, agent: "default" });
    expect(outcome).toMatchObject({ status: "failed", error: expect.stringMatching(/^quota_exceeded: .*max_bytes/) });
    expect(await coldOf(m.mindId)).toMatchObject({ text: "", version: 0 });
    expect(await versionsOf(m.mindId)).toEqual([]);
    expect((await storedNotes(m.mindId)).map((n) => n.consolidationId)).toEqual([null]);
    const after = await usageAndTruth(m.mindId);
    expect(after.usage).toEqual(after.truth);
    expect(after.usage).toMatchObject({ notes: 1, memories: 1 });
  });

  it("max_notes refuses a note, and extraction then writes nothing and keeps its cursor", async () => {
    const t = await tenant({ max_notes: 1 });
    expect((await call("POST", "/notes", { ...t.auth, body: { text: "The first note is here" } })).status).toBe(201);
    expectQuota(await call("POST", "/notes", { ...t.auth, body: { text: "The second note is refused" } }), "max_notes");

    const session = await openSession(t.auth);
    await append(t.auth, session.id, { content: "I always deploy on Fridays." });
    const model = scriptedModel([JSON.stringify({ notes: [{ text: "Deploys on Fridays", section: "context", signal: "fact" }] })]);
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(session.id)), (instance) => {
      useObjectModel(instance, model.model);
    });
    const extracted = await call("POST", `/sessions/${session.id}/extract`, t.auth);
    expect(extracted.status).toBe(200);
    expect(extracted.json.extraction).toMatchObject({ status: "quota", notes: 0, extracted: null, cursor: 0 });
    const notes = await call("GET", "/notes", t.auth);
    expect(notes.json.notes.map((n: any) => n.text)).toEqual(["The first note is here"]);
  });

  it("max_bytes counts memories, notes, messages and cold versions, and refuses what would pass it", async () => {
    const t = await tenant({ max_bytes: 2_000 });
    await store(t.auth, { key: "sized", content: "x".repeat(500) });
    const session = await openSession(t.auth);
    await append(t.auth, session.id, { content: "y".repeat(500) });
    expect((await call("PUT", "/cold", { ...t.auth, body: { text: "z".repeat(400), version: 0 } })).status).toBe(200);
    const before = await usageAndTruth(t.mind.id);
    expect(before.usage).toEqual(before.truth);
    expect((before.usage as { bytes: number }).bytes).toBeGreaterThan(1_400);

    expectQuota(await call("POST", `/sessions/${session.id}/messages`, { ...t.auth, body: { role: "user", content: "m".repeat(700) } }), "max_bytes");
    expectQuota(await call("POST", "/memory", { ...t.auth, body: { category: "fact", key: "big", content: "b".repeat(700) } }), "max_bytes");
    expectQuota(await call("POST", "/notes", { ...t.auth, body: { text: "n".repeat(700) } }), "max_bytes");
    expectQuota(await call("PUT", "/cold", { ...t.auth, body: { text: "c".repeat(700), version: 1 } }), "max_bytes");
    expect(await usageAndTruth(t.mind.id)).toEqual(before);
    // A small write still fits.
    expect((await call("POST", `/sessions/${session.id}/messages`, { ...t.auth, body: { role: "user", content: "ok" } })).status).toBe(201);
  });

  it("holds a quota changed elsewhere for the very next write of a warm key: the write reads it from the mind's stored row", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    await store({ token: key }, { key: "warm", content: "the key and its mind are cached now" });
    // Another isolate's change: this one still holds the defaults in its cache for DIRECTORY_TTL_MS.
    const settings = JSON.stringify({ max_memories: 1, max_notes: 0 });
    for (const db of new Set([env.DB, await dataOf(t.mind.id)])) await db.prepare("update minds set settings = json_patch(settings, ?) where id = ?").bind(settings, t.mind.id).run();
    expectQuota(await call("POST", "/memory", { token: key, body: { category: "fact", key: "second", content: "one too many" } }), "max_memories");
    expectQuota(await call("POST", "/notes", { token: key, body: { text: "a note" } }), "max_notes");
  });

  it("an import's settings hold at once for a warm key, on either database: max_memories 2 from the archive refuses the third write", async () => {
    const owner = await newTenant();
    const shards = new Set<string>();
    for (let n = 0; n < 6 && shards.size < 2; n++) {
      const mind = n === 0 ? owner.mind : await newMind(owner.token);
      const shard = (await env.DB.prepare("select shard from minds where id = ?").bind(mind.id).first<string>("shard"))!;
      if (shards.has(shard)) continue;
      shards.add(shard);
      const { key } = await newKey(owner.token, mind.id);
      expect((await call("GET", "/memory", { token: key })).status).toBe(200);
      const at = new Date().toISOString();
      const archive = JSON.stringify({ type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "quota", locale: "en", retention_hours: null, settings: { max_memories: 2 } } });
      const imported = await followImport(mind.id, owner.token, await call("POST", `/minds/${mind.id}/import`, { token: owner.token, rawBody: archive, headers: { "Content-Type": "application/x-ndjson" } }));
      expect(imported.status, imported.text).toBeLessThan(300);
      const written = [];
      for (const k of ["one", "two", "three"]) written.push(await call("POST", "/memory", { token: key, body: { category: "fact", key: k, content: k } }));
      expect(written.map((w) => w.status), shard).toEqual([201, 201, 403]);
      expectQuota(written[2]!, "max_memories");
    }
    expect(shards.size).toBe(2);
  });

  it("import refuses an archive larger than the mind's quotas and writes nothing", async () => {
    const source = await newTenant();
    const auth = { token: source.token, mind: source.mind.id };
    for (const key of ["a", "b", "c"]) await store(auth, { key, content: `content ${key}` });
    const archive = await call("GET", `/minds/${source.mind.id}/export`, { token: source.token });
    expect(archive.status).toBe(200);

    const target = await call("POST", "/minds", { token: source.token, body: { name: unique("copy") } });
    await patchSettings({ token: source.token, mind: target.json.id }, { max_memories: 2 });
    const imported = await call("POST", `/minds/${target.json.id}/import`, {
      token: source.token,
      rawBody: archive.text,
      headers: { "Content-Type": "application/x-ndjson" },
    });
    expectQuota(imported, "max_memories");
    const count = await (await dataOf(target.json.id)).prepare("select count(*) as n from memories where mind_id = ?").bind(target.json.id).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });
});

import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_RETENTION } from "../../src/db/prune";
import { jobRuns, memories, memoryHistory, notes } from "../../src/db/schema";
import { createEmbedder } from "../../src/embeddings/providers";
import worker from "../../src/index";
import { CRON_JOBS } from "../../src/jobs";
import { readLlmConfig } from "../../src/llm/providers";
import { storeMemory } from "../../src/memory/memories";
import { addNote } from "../../src/notes/notes";
import { NOTES_RETENTION_STEP } from "../../src/notes/retention";
import { runJob } from "../../src/queue/job-runs";
import type { Scope } from "../../src/tenancy/principal";
import wranglerToml from "../../wrangler.toml?raw";
import { ADMIN_TOKEN, call, newHuman, newMind } from "../helpers";
import { DAY, depsOfMind, HOUR, inMind, manualClock, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { runNow } from "../support/jobs";
import { coldOf, newNotesMind } from "../support/long-term";

// Its jobs sweep every mind and it counts what they did: it starts from empty databases.
beforeAll(freshDatabases);

function declaredCrons(): string[] {
  const match = /crons\s*=\s*\[([^\]]*)\]/.exec(wranglerToml);
  if (!match) throw new Error("wrangler.toml declares no crons");
  return [...match[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

async function scopeOf(mind: Record<string, unknown> = {}): Promise<Scope> {
  const human = await newHuman();
  const created = await newMind(human.token, mind);
  return { mindId: created.id, agent: "default", agentFilter: null, principal: { kind: "human", accountId: human.accountId } };
}

const at = (base: Date, offsetMs: number) => manualClock(new Date(base.getTime() + offsetMs));

/** Fires a cron trigger at the Worker's scheduled() as the runtime does. */
async function fire(cron: string) {
  // scheduled() awaits its jobs itself rather than handing them to ctx.waitUntil.
  await worker.scheduled(createScheduledController({ cron, scheduledTime: Date.now() }), env);
}

describe("scheduled()", () => {
  it("routes every cron expression of wrangler.toml to its jobs and records each run", async () => {
    const crons = declaredCrons();
    expect(crons.sort()).toEqual(Object.keys(CRON_JOBS).sort());
    const m = await newNotesMind();
    await m.addNote("Folded by the hourly trigger", "profile");

    for (const cron of crons) {
      await fire(cron);
      const runs = await call("GET", `/jobs?limit=100`, { token: ADMIN_TOKEN });
      for (const job of CRON_JOBS[cron]!) {
        const run = runs.json.runs.find((r: { job: string; cron: string }) => r.job === job && r.cron === cron);
        expect(run, `${cron} → ${job}`).toBeDefined();
        expect(run.error).toBeNull();
        expect(run.finished_at).not.toBeNull();
      }
    }
    // The run only enqueued the namespace; the Worker's own queue() consumer folds it.
    await vi.waitFor(async () => expect((await coldOf(m.mindId)).text).toContain("Folded by the hourly trigger"), { timeout: 20_000, interval: 100 });
    const hourly = (await call("GET", "/jobs?job=consolidation", { token: ADMIN_TOKEN })).json.runs[0];
    expect(hourly.counts.enqueued).toBeGreaterThanOrEqual(1);
    expect(hourly.counts.pages).toBeGreaterThanOrEqual(2);
  });

  it("fails on a cron expression it does not know", async () => {
    await expect(fire("*/5 * * * *")).rejects.toThrow(/no job is scheduled for cron "\*\/5 \* \* \* \*": the crons are "0 \* \* \* \*", "30 3 \* \* \*"/);
  });

  it("a failing job is recorded with its error and fails the invocation", async () => {
    const deps = testDeps();
    const run = await runJob(deps, "retention", null, async (counts) => {
      counts.halfway = 1;
      throw new Error("disk on fire");
    });
    expect(run).toMatchObject({ error: "disk on fire", counts: { halfway: 1 } });
    const stored = await deps.directory.select().from(jobRuns).where(eq(jobRuns.id, run.id)).get();
    expect(stored).toMatchObject({ error: "disk on fire", counts: { halfway: 1 } });
  });
});

describe("retention", () => {
  const now = new Date("2030-06-01T12:00:00.000Z");

  it("deletes notes, memories and history not refreshed within retention_hours, to the millisecond", async () => {
    const scope = await scopeOf({ retention_hours: 24 });
    const keep = await scopeOf();
    const cutoff = -24 * HOUR;
    const stale = await storeMemory(await inMind(testDeps({ clock: at(now, cutoff - 1) }), scope), { category: "fact", key: "stale", content: "old" });
    const edge = await storeMemory(await inMind(testDeps({ clock: at(now, cutoff) }), scope), { category: "fact", key: "edge", content: "on the line" });
    const refreshed = await storeMemory(await inMind(testDeps({ clock: at(now, -30 * DAY) }), scope), { category: "fact", key: "refreshed", content: "v1" });
    await storeMemory(await inMind(testDeps({ clock: at(now, -HOUR) }), scope), { category: "fact", key: "refreshed", content: "v2" });
    const noRetention = await storeMemory(await inMind(testDeps({ clock: at(now, -300 * DAY) }), keep), { category: "fact", key: "old", content: "kept" });
    const staleNote = await addNote(await inMind(testDeps({ clock: at(now, cutoff - 1) }), scope), { text: "stale note" });
    const edgeNote = await addNote(await inMind(testDeps({ clock: at(now, cutoff) }), scope), { text: "edge note" });
    const oldNoteElsewhere = await addNote(await inMind(testDeps({ clock: at(now, -300 * DAY) }), keep), { text: "kept note" });

    const counts: Record<string, number | string> = {};
    await runNow("retention", testDeps({ clock: manualClock(now) }), counts);
    const db = (await depsOfMind(scope.mindId)).shard;
    const ids = async (mindId: string) =>
      (await (await depsOfMind(mindId)).shard.select({ id: memories.id }).from(memories).where(eq(memories.mindId, mindId))).map((r) => r.id);
    expect((await ids(scope.mindId)).sort()).toEqual([edge.memory.id, refreshed.memory.id].sort());
    expect(await ids(keep.mindId)).toEqual([noRetention.memory.id]);
    const noteIds = [
      ...(await db.select({ id: notes.id }).from(notes)),
      ...(await (await depsOfMind(keep.mindId)).shard.select({ id: notes.id }).from(notes)),
    ].map((n) => n.id);
    expect(noteIds).not.toContain(staleNote.id);
    expect(noteIds).toContain(edgeNote.id);
    expect(noteIds).toContain(oldNoteElsewhere.id);

    const history = await db.select().from(memoryHistory).where(eq(memoryHistory.mindId, scope.mindId));
    expect(history.find((h) => h.memoryId === stale.memory.id && h.action === "create")).toBeUndefined();
    expect(history.find((h) => h.memoryId === stale.memory.id && h.action === "retention")).toMatchObject({
      actor: "system:retention",
      oldContent: null,
    });
    expect(history.filter((h) => h.memoryId === refreshed.memory.id).map((h) => h.action)).toEqual(["update"]);
    expect(counts.memories_past_retention).toBeGreaterThanOrEqual(1);
    expect(counts.notes_past_retention).toBeGreaterThanOrEqual(1);
    expect(String(counts.optimize)).toMatch(/^DB: (ran|skipped: .+); SHARD_1: (ran|skipped: .+)$/);
  });

  it("deletes memories expired longer than the grace period, not those within it", async () => {
    const scope = await scopeOf();
    const grace = DEFAULT_RETENTION.expiredGraceMs;
    const store = async (key: string, expiresIn: number | null) =>
      storeMemory(await inMind(testDeps({ clock: at(now, -60 * DAY) }), scope), {
        category: "context",
        key,
        content: key,
        expires_at: expiresIn === null ? null : new Date(now.getTime() + expiresIn).toISOString(),
      });
    const gone = await store("past_grace", -grace - 1);
    await store("at_grace", -grace);
    await store("recently_expired", -DAY);
    await store("never_expires", null);
    await runNow("retention", testDeps({ clock: manualClock(now) }), {});
    const db = (await depsOfMind(scope.mindId)).shard;
    const left = await db.select({ key: memories.key }).from(memories).where(eq(memories.mindId, scope.mindId));
    expect(left.map((r) => r.key).sort()).toEqual(["at_grace", "never_expires", "recently_expired"]);
    const trace = await db
      .select()
      .from(memoryHistory)
      .where(and(eq(memoryHistory.memoryId, gone.memory.id), eq(memoryHistory.action, "expired")))
      .get();
    expect(trace).toMatchObject({ actor: "system:retention", oldContent: null });
  });

  it("works in bounded rounds and finishes the rest on later runs; running again changes nothing", async () => {
    const scope = await scopeOf({ retention_hours: 1 });
    const later = new Date("2031-01-01T00:00:00.000Z");
    for (let i = 0; i < 5; i++) await addNote(await inMind(testDeps({ clock: at(later, -2 * HOUR) }), scope), { text: `old ${i}` });
    const step = NOTES_RETENTION_STEP;
    const small = { ...DEFAULT_RETENTION, batchSize: 2, maxRounds: 1 };
    const deps = await depsOfMind(scope.mindId);
    const deleted: number[] = [];
    for (let run = 0; run < 5; run++) deleted.push(await step.run(deps, later, small));
    expect(deleted.every((n) => n <= 2)).toBe(true);
    expect(deleted.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    expect(deleted.at(-1)).toBe(0);
    expect(await deps.shard.select().from(notes).where(eq(notes.mindId, scope.mindId))).toEqual([]);
  });

  it("keeps a month of job runs", async () => {
    const deps = testDeps();
    const old = await runJob(testDeps({ clock: at(now, -31 * DAY) }), "retention", null, async () => {});
    const recent = await runJob(testDeps({ clock: at(now, -29 * DAY) }), "retention", null, async () => {});
    await runNow("retention", testDeps({ clock: manualClock(now) }), {});
    const left = (await deps.directory.select({ id: jobRuns.id }).from(jobRuns)).map((r) => r.id);
    expect(left).not.toContain(old.id);
    expect(left).toContain(recent.id);
  });
});

it("the test environment has no model configured, whatever .dev.vars holds for npm run dev", () => {
  expect(readLlmConfig(env)).toEqual({ provider: "none" });
  expect(createEmbedder(env)).toBeNull();
});

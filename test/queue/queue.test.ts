import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { ModelRateLimited } from "../../src/errors";
import worker from "../../src/index";
import { recordUsage } from "../../src/llm/ledger";
import { QUEUED_TTL_MS, readMark } from "../../src/queue/marks";
import { DEAD_LETTER_QUEUE, parseMessage, parseUnit, type Unit, unitText, WORK_QUEUE, type WorkMessage } from "../../src/queue/units";
import wranglerToml from "../../wrangler.toml?raw";
import { ADMIN_TOKEN, call } from "../helpers";
import { depsOfMind, manualClock } from "../support/deps";
import { runCronWith, settleMessage, workDeps } from "../support/jobs";
import { coldOf, consolidationsOf, foldingTurn, newNotesMind, storedNotes, versionsOf } from "../support/long-term";
import { scriptedModel } from "../support/scripted-model";

/** One hourly cron run at `at` with a queue in memory; the messages it sent for the mind. */
async function hourly(at: Date, mindId?: string): Promise<WorkMessage[]> {
  const deps = workDeps({ clock: manualClock(at) });
  await runCronWith(deps, "0 * * * *");
  return deps.queue.messages.filter((m) => mindId === undefined || m.unit.includes(mindId));
}

async function mindWith(texts: string[], settings: Record<string, unknown> = {}) {
  const m = await newNotesMind({ settings: { daily_token_budget: 1_000_000, ...settings } });
  for (const text of texts) await m.addNote(text, "profile");
  return m;
}

const batchOf = (queue: string, messages: WorkMessage[], attempts = 1) =>
  createMessageBatch<WorkMessage>(queue, messages.map((body, i) => ({ id: `msg-${i}`, timestamp: new Date(), attempts, body })));

describe("the work queue's configuration", () => {
  it("wrangler.toml declares the producer, the consumer with its limits and a dead-letter queue, each consumed by this Worker", () => {
    expect(wranglerToml).toMatch(new RegExp(`\\[\\[queues\\.producers\\]\\]\\s*binding = "JOBS"\\s*queue = "${WORK_QUEUE}"`));
    const consumer = new RegExp(`\\[\\[queues\\.consumers\\]\\]\\s*queue = "${WORK_QUEUE}"[^\\[]*`).exec(wranglerToml)?.[0] ?? "";
    for (const key of ["max_batch_size", "max_batch_timeout", "max_retries", "max_concurrency"]) expect(consumer).toMatch(new RegExp(`${key} = \\d+`));
    expect(consumer).toContain(`dead_letter_queue = "${DEAD_LETTER_QUEUE}"`);
    expect(wranglerToml).toMatch(new RegExp(`\\[\\[queues\\.consumers\\]\\]\\s*queue = "${DEAD_LETTER_QUEUE}"`));
  });
});

describe("units of work", () => {
  it("a unit's text names it exactly, and sorts as its ids do, so producers page by it", () => {
    const units: Unit[] = [
      { kind: "consolidate", mindId: "mind_a", agent: "default" },
      { kind: "extract", mindId: "mind_a", sessionId: "ses_1" },
      { kind: "embed", mindId: "mind_b" },
      { kind: "vectors" },
      { kind: "retention", step: "notes_past_retention" },
      { kind: "erase", mindId: "mind_c" },
      { kind: "produce", job: "consolidation", run: "job_1", source: 0, after: null },
      { kind: "produce", job: "embeddings", run: "job_1", source: 1, after: "embed mind_b" },
    ];
    for (const unit of units) expect(parseUnit(unitText(unit))).toEqual(unit);
    const ids = [["mind_a", "a-b"], ["mind_a", "a"], ["mind_a_b", "a"], ["mind_a", "a_b"], ["mind_ab", "z"]];
    const byText = ids.map(([mindId, agent]) => unitText({ kind: "consolidate", mindId: mindId!, agent: agent! })).sort();
    const byIds = [...ids].sort(([m1, a1], [m2, a2]) => (m1! < m2! ? -1 : m1! > m2! ? 1 : a1! < a2! ? -1 : a1! > a2! ? 1 : 0));
    expect(byText).toEqual(byIds.map(([m, a]) => `consolidate ${m} ${a}`));
  });

  it("a message that names no unit is not worked on", () => {
    for (const body of [null, "consolidate mind_a default", { unit: "drop table notes", shard: "DB", run: "r" }, { unit: "consolidate mind_a", shard: "DB", run: "r" }, { unit: "retention", shard: 1, run: "r" }, { unit: "retention", shard: "DB", run: "r" }, { unit: "produce retention job_1", shard: "DB", run: "r" }, { unit: "produce nightly job_1 0", shard: "DB", run: "r" }, { unit: "erase MIND", shard: "DB", run: "r" }]) {
      expect(parseMessage(body), JSON.stringify(body)).toBeNull();
    }
    expect(parseMessage({ unit: "retention llm_usage", shard: "SHARD_1", run: "job_1" })).toEqual({ message: { unit: "retention llm_usage", shard: "SHARD_1", run: "job_1" }, unit: { kind: "retention", step: "llm_usage" } });
  });
});

describe("at-least-once delivery", () => {
  it("a message delivered twice folds each note once and writes one cold version", async () => {
    const m = await mindWith(["Drinks tea without sugar", "Lives in Riga"]);
    const [message] = await hourly(new Date(), m.mindId);
    const deps = workDeps({ llm: scriptedModel([foldingTurn]).model });
    expect(await settleMessage(deps, message!, 1)).toMatchObject({ ack: true, outcome: { status: "done", counts: { done: 1, folded_notes: 2 } } });
    expect(await settleMessage(deps, message!, 1)).toMatchObject({ ack: true, outcome: { status: "done", counts: { nothing: 1 } } });
    expect(await versionsOf(m.mindId)).toHaveLength(1);
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect((await coldOf(m.mindId)).text.match(/Drinks tea without sugar/g)).toHaveLength(1);
  });

  it("a message delivered twice at the same time folds each note once and writes one cold version", async () => {
    const m = await mindWith(Array.from({ length: 120 }, (_, i) => `Fact number ${i}`));
    const [message] = await hourly(new Date(), m.mindId);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([async (prompt) => (await held, foldingTurn(prompt))]);
    const deps = workDeps({ llm: model.model });
    const first = settleMessage(deps, message!, 1);
    // The first delivery holds its claim while the model works; the second arrives meanwhile.
    await vi.waitFor(() => expect(model.prompts).toHaveLength(1));
    const second = await settleMessage(deps, message!, 1);
    release();
    expect(second).toMatchObject({ ack: true, outcome: { status: "done", counts: { nothing: 1 } } });
    // One consolidation folds at most 100 notes: the unit goes round again for the rest.
    expect(await first).toMatchObject({ ack: true, outcome: { status: "done", counts: { folded_notes: 100 }, more: true } });
    expect(await versionsOf(m.mindId)).toHaveLength(1);
    expect(await storedNotes(m.mindId)).toHaveLength(20);
    expect(deps.queue.messages).toEqual([message]);
    expect(await settleMessage(deps, deps.queue.messages[0]!, 1)).toMatchObject({ outcome: { status: "done", counts: { folded_notes: 20 } } });
    expect(await versionsOf(m.mindId)).toHaveLength(2);
    expect(await storedNotes(m.mindId)).toEqual([]);
  });

  it("a unit that goes round again keeps its mark as long as its chain of messages runs", async () => {
    const m = await mindWith(Array.from({ length: 120 }, (_, i) => `Fact number ${i}`));
    const at = new Date("2031-05-01T10:00:00.000Z");
    const [message] = await hourly(at, m.mindId);
    // Its message comes round two hours later, when the producer's mark has one hour left.
    const later = new Date(at.getTime() + 2 * 3_600_000);
    const settled = await settleMessage(workDeps({ clock: manualClock(later), llm: scriptedModel([foldingTurn]).model }), message!, 1);
    expect(settled).toMatchObject({ ack: true, outcome: { status: "done", more: true } });
    const mark = await readMark((await depsOfMind(m.mindId)).shard, message!.unit);
    expect(mark).toMatchObject({ expiresAt: new Date(later.getTime() + QUEUED_TTL_MS).toISOString() });
    // So the next hourly run, past the producer's three hours, does not send a second copy.
    expect(await hourly(new Date(at.getTime() + 4 * 3_600_000), m.mindId)).toEqual([]);
  });

  it("overlapping producer runs enqueue a unit once; once it is done the next run enqueues it again", async () => {
    const m = await mindWith(["Plays the cello"]);
    const runs = await Promise.all([hourly(new Date(), m.mindId), hourly(new Date(), m.mindId), hourly(new Date(), m.mindId)]);
    expect(runs.flat()).toHaveLength(1);
    expect(await hourly(new Date(), m.mindId)).toEqual([]);
    await settleMessage(workDeps(), runs.flat()[0]!, 1);
    await m.addNote("Plays the piano too", "profile");
    expect(await hourly(new Date(), m.mindId)).toHaveLength(1);
  });
});

describe("failures", () => {
  it("a failing unit is retried with backoff without holding others back, then lands in the dead letters an operator sees and re-drives", async () => {
    const unlucky = await mindWith(["An unlucky fact"]);
    const lucky = await mindWith(["A lucky fact"]);
    const sent = await hourly(new Date());
    const messages = [unlucky, lucky].map((m) => sent.find((message) => message.unit.includes(m.mindId))!);
    const model = scriptedModel([(prompt) => (prompt.includes("unlucky") ? Promise.reject(new Error("upstream 503")) : foldingTurn(prompt))]);
    const deps = workDeps({ llm: model.model });
    const [failed, done] = await Promise.all(messages.map((message) => settleMessage(deps, message, 1)));
    expect(done).toMatchObject({ ack: true, outcome: { status: "done" } });
    expect((await coldOf(lucky.mindId)).text).toContain("A lucky fact");
    expect(failed).toMatchObject({ ack: false, outcome: { status: "retry", code: "model_failed" } });
    expect(failed!.ack === false && failed!.delaySeconds).toBeGreaterThanOrEqual(24);
    const later = await settleMessage(deps, messages[0]!, 6);
    expect(later.ack === false && later.delaySeconds).toBeGreaterThanOrEqual(16 * 30 * 0.8);
    expect(await storedNotes(unlucky.mindId)).toHaveLength(1);

    // Through the Worker's queue(), with a model setting that cannot work: the unit that needs the
    // model is retried after a delay, a unit of another kind in the same batch is acknowledged.
    const batch = batchOf(WORK_QUEUE, [messages[0]!, { unit: "retention optimize", shard: "DB", run: "run_other" }], 2);
    const ctx = createExecutionContext();
    await worker.queue(batch, { ...env, LLM_PROVIDER: "openai-compatible" });
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([expect.objectContaining({ msgId: "msg-0" })]);
    expect(result.explicitAcks).toEqual(["msg-1"]);

    // After max_retries the queue hands the message to the dead-letter queue's consumer.
    await settleMessage(deps, messages[0]!, 11);
    const dead = batchOf(DEAD_LETTER_QUEUE, [messages[0]!]);
    const deadCtx = createExecutionContext();
    await worker.queue(dead, env);
    expect((await getQueueResult(dead, deadCtx)).explicitAcks).toEqual(["msg-0"]);
    expect((await call("GET", "/jobs")).status).toBe(401);
    expect((await call("POST", "/jobs/dead-letters/redrive", { body: {} })).status).toBe(401);
    expect((await call("POST", "/jobs/dead-letters/redrive", { token: unlucky.token, body: {} })).status).toBe(403);
    const jobs = await call("GET", "/jobs?limit=100", { token: ADMIN_TOKEN });
    expect(jobs.status).toBe(200);
    const letter = jobs.json.dead_letters.letters.find((l: { mind_id: string }) => l.mind_id === unlucky.mindId);
    expect(letter).toMatchObject({ kind: "consolidate", namespace: "default", error_code: "model_failed", attempts: 11, deaths: 1 });
    expect(jobs.text).not.toContain("unlucky fact");
    expect(jobs.text).not.toContain("upstream 503");
    expect(jobs.json.dead_letters.by_code).toContainEqual(expect.objectContaining({ kind: "consolidate", error_code: "model_failed" }));
    // Dead, the unit is held for a day: the hourly runs do not send it round again by themselves.
    expect(await hourly(new Date(Date.now() + 2 * 3_600_000), unlucky.mindId)).toEqual([]);

    // Re-driven, it goes back to the queue; this Worker's consumer (no model here: the offline merge) folds it.
    expect((await call("POST", "/jobs/dead-letters/redrive", { token: ADMIN_TOKEN, body: { limit: 1000 } })).status).toBe(400);
    const redrive = await call("POST", "/jobs/dead-letters/redrive", { token: ADMIN_TOKEN, body: { kind: "consolidate" } });
    expect(redrive.json.redriven).toBeGreaterThanOrEqual(1);
    await vi.waitFor(async () => expect((await coldOf(unlucky.mindId)).text).toContain("An unlucky fact"), { timeout: 20_000, interval: 100 });
    const after = await call("GET", "/jobs?limit=100", { token: ADMIN_TOKEN });
    expect(after.json.dead_letters.letters.find((l: { mind_id: string }) => l.mind_id === unlucky.mindId)).toBeUndefined();
  });

  it("a mind over its daily token budget waits for the UTC day to turn, and that is not a failure", async () => {
    const m = await mindWith(["Runs on Tuesdays"], { daily_token_budget: 100 });
    const at = new Date("2031-03-10T10:00:00.000Z");
    await recordUsage(await depsOfMind(m.mindId, { clock: manualClock(at) }), { mindId: m.mindId }, "chat", { inputTokens: 100, outputTokens: 0 }, false);
    const [message] = await hourly(at, m.mindId);
    const model = scriptedModel([foldingTurn]);
    const settled = await settleMessage(workDeps({ clock: manualClock(at), llm: model.model }), message!, 1);
    expect(settled).toMatchObject({ ack: true, outcome: { status: "wait", reason: "budget", until: new Date("2031-03-11T00:00:00.000Z") } });
    expect(model.prompts).toEqual([]);
    const mark = await readMark((await depsOfMind(m.mindId)).shard, message!.unit);
    expect(mark).toMatchObject({ expiresAt: "2031-03-11T00:00:00.000Z", attempts: 0, lastError: null });
    expect((await consolidationsOf(m.mindId)).filter((c) => c.status === "failed")).toEqual([]);
    // Later that day the hourly runs leave it waiting; the first run of the next day enqueues it.
    expect(await hourly(new Date("2031-03-10T23:00:00.000Z"), m.mindId)).toEqual([]);
    const [next] = await hourly(new Date("2031-03-11T00:00:00.000Z"), m.mindId);
    expect(next).toBeDefined();
    const morning = await settleMessage(workDeps({ clock: manualClock("2031-03-11T00:00:05.000Z"), llm: model.model }), next!, 1);
    expect(morning).toMatchObject({ ack: true, outcome: { status: "done", counts: { done: 1 } } });
  });

  it("a call the shared model limiter refuses is retried after the delay the limiter gives, and costs no ledger entry", async () => {
    const m = await mindWith(["Speaks Latvian"]);
    const [message] = await hourly(new Date(), m.mindId);
    const model = scriptedModel([() => Promise.reject(new ModelRateLimited(17))]);
    const settled = await settleMessage(workDeps({ llm: model.model }), message!, 1);
    expect(settled).toMatchObject({ ack: false, delaySeconds: 17, outcome: { status: "retry", code: "rate_limited" } });
    expect(await storedNotes(m.mindId)).toHaveLength(1);
    const usage = await call("GET", "/usage", m.auth);
    expect(JSON.stringify(usage.json)).not.toContain("consolidation");
  });
});

describe("the shared model limiter", () => {
  it("admits a minute's requests and tokens, then says how long to wait; a provider's 429 pauses every caller", async () => {
    const limiter = env.MODEL_LIMITS!.get(env.MODEL_LIMITS!.idFromName(`test ${crypto.randomUUID()}`));
    const limits = { requestsPerMinute: 2, tokensPerMinute: 1_000 };
    expect(await limiter.admit(100, limits)).toEqual({ ok: true });
    expect(await limiter.admit(100, limits)).toEqual({ ok: true });
    const third = await limiter.admit(100, limits);
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.retryAfterMs).toBeGreaterThan(20_000);

    const tokens = env.MODEL_LIMITS!.get(env.MODEL_LIMITS!.idFromName(`test ${crypto.randomUUID()}`));
    expect(await tokens.admit(900, { requestsPerMinute: 0, tokensPerMinute: 1_000 })).toEqual({ ok: true });
    const over = await tokens.admit(500, { requestsPerMinute: 0, tokensPerMinute: 1_000 });
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.retryAfterMs).toBeGreaterThan(20_000);

    const paused = env.MODEL_LIMITS!.get(env.MODEL_LIMITS!.idFromName(`test ${crypto.randomUUID()}`));
    await paused.pause(30_000);
    const refused = await paused.admit(1, { requestsPerMinute: 100, tokensPerMinute: 0 });
    expect(refused.ok).toBe(false);
  });
});

import { env } from "cloudflare:workers";
import { DrizzleQueryError } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loggable } from "../../src/errors";
import worker from "../../src/index";
import { logEvent } from "../../src/observe/log";
import { consumeWork } from "../../src/queue/consume";
import type { QueueJob, UnitHandlers } from "../../src/queue/handlers";
import type { JobName } from "../../src/queue/job-runs";
import { runScheduled } from "../../src/queue/schedule";
import { WORK_QUEUE } from "../../src/queue/units";
import { call, newTenant, store, unique } from "../helpers";
import { testDeps } from "../support/deps";
import { faultyD1 } from "../support/faulty-d1";

type Line = Record<string, unknown>;

/** Every line the console received while a test ran, as printed. */
let printed: string[] = [];

beforeEach(() => {
  printed = [];
  for (const method of ["log", "warn", "error"] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** The structured lines printed, parsed. */
const lines = (): Line[] => printed.flatMap((text) => {
  try {
    const line: unknown = JSON.parse(text);
    return typeof line === "object" && line !== null ? [line as Line] : [];
  } catch {
    return [];
  }
});
const linesOf = (event: string) => lines().filter((line) => line.event === event);

describe("a request's log line", () => {
  it("names the request by the id its answer carries, the route's pattern, the mind, its shard, the status, the time and the D1 cost", async () => {
    const tenant = await newTenant();
    const memory = await store({ token: tenant.token, mind: tenant.mind.id }, { key: unique("k").replaceAll("-", "_"), content: "a remembered thing" });
    printed = [];
    const res = await call("GET", `/memory/${memory.id}`, { token: tenant.token, mind: tenant.mind.id });
    expect(res.status).toBe(200);
    const requestId = res.headers.get("X-Request-Id");
    expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
    const line = linesOf("request").find((l) => l.request_id === requestId);
    const mind = await env.DB.prepare("select shard from minds where id = ?").bind(tenant.mind.id).first<{ shard: string }>();
    expect(line).toMatchObject({ level: "info", method: "GET", route: "/memory/:id", mind: tenant.mind.id, shard: mind!.shard, status: 200 });
    expect(line!.duration_ms).toEqual(expect.any(Number));
    expect(line!.d1_queries).toBeGreaterThan(0);
    for (const field of ["d1_round_trips", "d1_rows_read", "d1_rows_written", "d1_ms", "d1_unmetered"]) expect(line![field]).toEqual(expect.any(Number));
    expect(JSON.stringify(line)).not.toContain(memory.id);
  });

  it("counts rows written from D1's meta", async () => {
    const tenant = await newTenant();
    printed = [];
    const res = await call("POST", "/memory", { token: tenant.token, mind: tenant.mind.id, body: { category: "fact", key: unique("k").replaceAll("-", "_"), content: "a new thing" } });
    expect(res.status).toBe(201);
    const line = linesOf("request").find((l) => l.request_id === res.headers.get("X-Request-Id"));
    expect(line).toMatchObject({ route: "/memory", status: 201 });
    expect(line!.d1_rows_written).toBeGreaterThan(0);
    expect(line!.d1_rows_read).toBeGreaterThan(0);
  });
});

describe("X-Request-Id", () => {
  it("every answer carries one, and an error body names the same id", async () => {
    const res = await call("GET", "/no/such/route");
    expect(res.status).toBe(404);
    const id = res.headers.get("X-Request-Id");
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.json.error).toMatchObject({ code: "not_found", requestId: id });
    expect(linesOf("request").find((l) => l.request_id === id)).toMatchObject({ status: 404, level: "warn" });
  });

  it("a refused request's body names its id, and answers from the OAuth provider carry one too", async () => {
    const refused = await call("GET", "/memory", { token: "emk_not-a-key" });
    expect(refused.status).toBe(401);
    expect(refused.json.error).toMatchObject({ code: "unauthorized", requestId: refused.headers.get("X-Request-Id") });
    const mcp = await call("POST", "/mcp", { body: {} });
    expect(mcp.status).toBe(401);
    expect(mcp.json.error).toMatchObject({ code: "unauthorized", requestId: mcp.headers.get("X-Request-Id") });
    expect((await call("GET", "/.well-known/oauth-authorization-server")).headers.get("X-Request-Id")).toMatch(/^req_/);
  });

  it("is the ray id when Cloudflare's edge gave one, and never what the client sent", async () => {
    const ray = await call("GET", "/health", { headers: { "cf-ray": "8f1a2b3c4d5e6f70-AMS" } });
    expect(ray.headers.get("X-Request-Id")).toBe("8f1a2b3c4d5e6f70-AMS");
    const chosen = await call("GET", "/health", { headers: { "X-Request-Id": "req_00000000000000000000000000000000" } });
    expect(chosen.headers.get("X-Request-Id")).not.toBe("req_00000000000000000000000000000000");
    const forged = await call("GET", "/health", { headers: { "cf-ray": "<script>" } });
    expect(forged.headers.get("X-Request-Id")).toMatch(/^req_[0-9a-f]{32}$/);
  });
});

/** A batch as the queue hands it to queue(), each message's ack or retry recorded. */
function batchOf(bodies: unknown[]) {
  const settled: string[] = [];
  const messages = bodies.map((body, i) => ({
    id: `msg-${i}-${unique("q")}`,
    timestamp: new Date(Date.now() - 5_000),
    body,
    attempts: 1,
    ack: () => void settled.push("ack"),
    retry: () => void settled.push("retry"),
  }));
  return { batch: { queue: WORK_QUEUE, messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<unknown>, messages, settled };
}

/** Handlers for every kind that read the directory once, then do what `outcome` says. */
function handlers(outcome: () => Promise<void>): UnitHandlers {
  const handle = async (deps: { directory: { $client: D1Database } }) => {
    await deps.directory.$client.prepare("select count(*) as n from minds").all();
    await outcome();
    return { status: "done" as const };
  };
  return { consolidate: handle, extract: handle, embed: handle, vectors: handle, retention: handle, erase: handle, import: handle, deliver: handle, produce: handle };
}

describe("a queue message's log line", () => {
  it("names the message, its unit's kind, mind and shard, the outcome, how long it waited and its D1 cost", async () => {
    const { batch, messages } = batchOf([
      { unit: "embed mind_observed", shard: "SHARD_1", run: "run_1" },
      { unit: "erase mind_failing", shard: "DB", run: "run_2" },
    ]);
    let call = 0;
    await consumeWork((wrap) => testDeps({ wrap }), handlers(async () => {
      if (call++ === 1) throw new Error("the unit broke");
    }), batch);
    const [done, failed] = messages.map((m) => linesOf("queue_message").find((l) => l.request_id === m.id));
    expect(done).toMatchObject({ level: "info", queue: WORK_QUEUE, kind: "embed", mind: "mind_observed", shard: "SHARD_1", status: "done", attempts: 1 });
    expect(done!.lag_ms).toBeGreaterThanOrEqual(5_000);
    expect(done!.duration_ms).toEqual(expect.any(Number));
    expect(done!.d1_queries).toBeGreaterThanOrEqual(1);
    expect(done!.d1_rows_read).toBeGreaterThan(0);
    expect(failed).toMatchObject({ level: "warn", kind: "erase", mind: "mind_failing", status: "retry", error_code: "internal" });
    expect(linesOf("unit_failed").find((l) => l.request_id === messages[1]!.id)).toMatchObject({ level: "error", error_code: "internal", kind: "erase" });
  });

  it("a line written anywhere in a message's work carries the message's id, as a cron run's lines carry the run's", async () => {
    const { batch, messages } = batchOf([{ unit: "embed mind_deep", shard: "DB", run: "run_4" }]);
    await consumeWork((wrap) => testDeps({ wrap }), handlers(async () => logEvent("info", "deep_in_the_unit")), batch);
    expect(linesOf("deep_in_the_unit")).toEqual([expect.objectContaining({ request_id: messages[0]!.id })]);

    printed = [];
    const failing: QueueJob = {
      name: "retention",
      sources: [
        {
          page: () => {
            throw new Error("no page");
          },
        },
      ],
    };
    await runScheduled((wrap) => testDeps({ wrap }), { crons: { "45 * * * *": ["retention"] }, jobs: { retention: failing } as Record<JobName, QueueJob> }, "45 * * * *").catch(() => undefined);
    const run = linesOf("cron_run").at(-1)!;
    const others = lines().filter((line) => line.event !== "cron_run");
    expect(others.length).toBeGreaterThan(0);
    for (const line of others) expect(line.request_id, JSON.stringify(line)).toBe(run.request_id);
  });

  it("a message that names no unit is logged as dropped", async () => {
    const { batch, messages, settled } = batchOf([{ unit: "no such unit", shard: "DB", run: "run_3" }]);
    await consumeWork((wrap) => testDeps({ wrap }), handlers(async () => {}), batch);
    expect(settled).toEqual(["ack"]);
    expect(linesOf("queue_message").find((l) => l.request_id === messages[0]!.id)).toMatchObject({ status: "dropped" });
  });
});

describe("a cron run's log line", () => {
  const idle: QueueJob = { name: "retention", sources: [] };
  const jobs = Object.fromEntries((["consolidation", "collection", "retention", "embeddings"] as JobName[]).map((name) => [name, { ...idle, name }]));
  const schedule = { crons: { "15 * * * *": ["consolidation", "retention"] as JobName[] }, jobs: jobs as Record<JobName, QueueJob> };

  it("names the run, the cron, its jobs, the outcome, the time and the D1 cost", async () => {
    await runScheduled((wrap) => testDeps({ wrap }), schedule, "15 * * * *");
    const line = linesOf("cron_run").at(-1);
    expect(line).toMatchObject({ level: "info", cron: "15 * * * *", status: "ok", jobs: "consolidation retention" });
    expect(line!.request_id).toMatch(/^cron_[0-9a-f]{32}$/);
    expect(line!.duration_ms).toEqual(expect.any(Number));
    // job_runs rows: one written as each job starts, changed as it ends.
    expect(line!.d1_rows_written).toBeGreaterThanOrEqual(4);
  });

  it("a cron the schedule lacks is logged as failed", async () => {
    await expect(runScheduled((wrap) => testDeps({ wrap }), schedule, "0 0 1 1 *")).rejects.toThrow(/no job is scheduled/);
    expect(linesOf("cron_run").at(-1)).toMatchObject({ level: "error", cron: "0 0 1 1 *", status: "failed" });
  });
});

describe("what log lines never carry", () => {
  it("a memory's text, when a request fails after reading it", async () => {
    const tenant = await newTenant();
    const secret = `zanzibar${Date.now().toString(36)}quokka`;
    const memory = await store({ token: tenant.token, mind: tenant.mind.id }, { key: unique("k").replaceAll("-", "_"), content: `the door code is ${secret}` });
    const { shard } = (await env.DB.prepare("select shard from minds where id = ?").bind(tenant.mind.id).first<{ shard: string }>())!;
    const headers = { Authorization: `Bearer ${tenant.token}`, "X-Mind-Id": tenant.mind.id, "Content-Type": "application/json" };
    const requests = () => [
      new Request(`https://edgemind.test/memory/${memory.id}`, { method: "PUT", headers, body: JSON.stringify({ content: `the door code is still ${secret}` }) }),
      new Request(`https://edgemind.test/memory/search?q=${secret}`, { headers }),
      new Request(`https://edgemind.test/memory?q=${secret}`, { headers }),
    ];
    let failures = 0;
    // Each D1 call to the mind's database in turn fails after D1 answered: the memory was read, the answer lost.
    for (let failAt = 1; failAt <= 8; failAt++) {
      for (const request of requests()) {
        const plan = { failAt, mode: "after" as const, calls: 0 };
        const faulty = { ...env, [shard]: faultyD1((env as unknown as Record<string, D1Database>)[shard]!, plan) };
        const res = await worker.fetch(request as Parameters<typeof worker.fetch>[0], faulty as typeof env, { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext);
        if (res.status !== 500) continue;
        failures++;
        expect(((await res.json()) as { error: { requestId: string } }).error.requestId).toBe(res.headers.get("X-Request-Id"));
      }
    }
    expect(failures).toBeGreaterThan(0);
    expect(linesOf("unhandled_error").length).toBe(failures);
    expect(printed.filter((line) => line.includes(secret))).toEqual([]);
  });

  it("the statement or parameters of a failed query, only what it failed of", () => {
    const failed = new DrizzleQueryError("update memories set content = ?", ["the door code is 4711"], new Error("D1_ERROR: database is locked"));
    expect(loggable(failed)).toBe("DrizzleQueryError (cause: Error: D1_ERROR: database is locked)");
  });
});

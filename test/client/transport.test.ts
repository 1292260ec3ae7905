import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import checkedInDocument from "../../packages/client/openapi.json?raw";
import { BOOKMARK_HEADER, EdgemindError, type EdgemindOptions } from "../../packages/client/src/index";
import worker from "../../src/index";
import { advanceMove, isMoveRunning, startMove } from "../../src/portability/move/move";
import { unique } from "../helpers";
import { testDeps } from "../support/deps";
import { passMoveFence } from "../support/moves";
import { BASE_URL, tenantClients, toWorker } from "./client-helpers";

const key = (base: string) => unique(base).replace(/-/g, "_");

/** The Worker with some vars changed (low rate limits), as a client's fetch. */
function workerWith(vars: Record<string, unknown>) {
  return async (request: Request) => {
    const ctx = createExecutionContext();
    const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...vars }, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  };
}

/** A client's waits, recorded instead of spent; `then` runs during each one. */
function recordedWaits(then: () => void | Promise<void> = () => {}) {
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    await then();
  };
  return { waits, sleep };
}

async function failureOf(pending: Promise<unknown>): Promise<EdgemindError> {
  const error = await pending.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(EdgemindError);
  return error as EdgemindError;
}

describe("the client's types", () => {
  it("are generated from the document the Worker serves (regenerate with npm run client:generate)", async () => {
    const served = await (await toWorker(new Request(`${BASE_URL}/openapi.json`))).json();
    // Compared as text: key order too, as the checked-in file writes it.
    expect(`${JSON.stringify(served, null, 2)}\n`).toBe(checkedInDocument);
  });
});

describe("the client carries the read-your-writes bookmark", () => {
  it("each call sends the bookmark the previous answer in its mind handed back", async () => {
    const exchanges: { sent: string | null; answered: string | null }[] = [];
    const recording = async (request: Request) => {
      const response = await toWorker(request);
      exchanges.push({ sent: request.headers.get(BOOKMARK_HEADER), answered: response.headers.get(BOOKMARK_HEADER) });
      return response;
    };
    const { agent, tenant } = await tenantClients({ fetch: recording });
    const { memory } = await agent.memory.store({ category: "fact", key: key("tea"), content: "Drinks tea without sugar" });
    await agent.memory.get(memory.id);
    await agent.notes.add({ text: "Prefers green tea" });
    await agent.memory.search("tea");

    expect(exchanges).toHaveLength(4);
    expect(exchanges[0]!.sent).toBeNull();
    for (const exchange of exchanges) expect(exchange.answered).toMatch(new RegExp(`^${tenant.mind.id}:`));
    for (let i = 1; i < exchanges.length; i++) expect(exchanges[i]!.sent).toBe(exchanges[i - 1]!.answered);
    expect(agent.bookmark()).toBe(exchanges.at(-1)!.answered);
    expect(agent.bookmark(tenant.mind.id)).toBe(exchanges.at(-1)!.answered);
    expect(agent.bookmark("mind_other")).toBeNull();
  });
});

describe("the client retries 429 and 503 within a bound", () => {
  // Two writes per key, then 429 (a stand-in for the WRITES_PER_KEY binding, counting per key).
  const twoWritesPerKey = (): RateLimit => {
    const seen = new Map<string, number>();
    return {
      limit: async ({ key }) => {
        seen.set(key, (seen.get(key) ?? 0) + 1);
        return { success: seen.get(key)! <= 2 };
      },
    };
  };
  const limitedVars = () => ({ RATE_LIMIT_REQUESTS: "on", WRITES_PER_KEY: twoWritesPerKey() });

  it("waits out a rate limit's Retry-After and sends the refused write again", async () => {
    const vars: Record<string, unknown> = limitedVars();
    const { waits, sleep } = recordedWaits(() => {
      vars.RATE_LIMIT_REQUESTS = "off";
    });
    const { agent } = await tenantClients({ fetch: workerWith(vars), sleep });
    for (const n of [1, 2]) await agent.memory.store({ category: "fact", key: key(`m${n}`), content: `fact ${n}` });
    const third = await agent.memory.store({ category: "fact", key: key("m3"), content: "fact 3" });

    expect(third.created).toBe(true);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(10_000);
    expect((await agent.memory.list()).total).toBe(3);
  });

  it("gives up with the typed error after its tries, or at once when told to wait longer than its bound or not to retry", async () => {
    const still = recordedWaits();
    const { agent: persistent } = await tenantClients({ fetch: workerWith(limitedVars()), sleep: still.sleep, retry: { attempts: 3 } });
    for (const n of [1, 2]) await persistent.memory.store({ category: "fact", key: key(`m${n}`), content: `fact ${n}` });
    const limited = await failureOf(persistent.memory.store({ category: "fact", key: key("m3"), content: "fact 3" }));
    expect(limited).toMatchObject({ status: 429, code: "rate_limited" });
    expect(limited.retryAfter).toBeGreaterThan(0);
    expect(still.waits).toHaveLength(2);

    const cases: Partial<EdgemindOptions>[] = [
      { fetch: workerWith(limitedVars()), retry: { maxWaitSeconds: 5 } },
      { fetch: workerWith(limitedVars()), retry: false },
    ];
    for (const options of cases) {
      const never = recordedWaits();
      const { agent } = await tenantClients({ ...options, sleep: never.sleep });
      for (const n of [1, 2]) await agent.memory.store({ category: "fact", key: key(`m${n}`), content: `fact ${n}` });
      const refused = await failureOf(agent.memory.store({ category: "fact", key: key("m3"), content: "fact 3" }));
      expect(refused).toMatchObject({ status: 429, code: "rate_limited" });
      expect(never.waits).toEqual([]);
    }
  });

  it("waits out a mind's move (503 mind_moving) and writes once it has landed", async () => {
    const deps = testDeps();
    let mindId = "";
    const { waits, sleep } = recordedWaits(async () => {
      for (let state = await advanceMove(deps, mindId); isMoveRunning(state); state = await advanceMove(deps, mindId)) {
        if (state === "switched") await passMoveFence(mindId);
      }
    });
    const { agent, tenant } = await tenantClients({ sleep });
    mindId = tenant.mind.id;
    await agent.memory.store({ category: "fact", key: key("before"), content: "Written before the move" });
    const home = (await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<string>("shard"))!;
    const to = home === "DB" ? "SHARD_1" : "DB";
    await startMove(deps, mindId, to);
    while ((await advanceMove(deps, mindId)) !== "copying");

    const during = await agent.memory.store({ category: "fact", key: key("during"), content: "Written during the move" });
    expect(during.created).toBe(true);
    expect(waits).toEqual([30_000]);
    expect(await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<string>("shard")).toBe(to);
    expect((await agent.memory.list()).memories.map((m) => m.content).sort()).toEqual(["Written before the move", "Written during the move"]);
    expect(agent.bookmark()).toMatch(new RegExp(`^${mindId}:${to}:`));
  });
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { newHuman, newKey, newMind, newTenant } from "../helpers";
import { recordingD1 } from "../support/recording-d1";
import { firstEverywhere } from "../support/shards";

// POST /memory in a deployment with recall by meaning: the request writes the memory, and its
// embedding runs after the response (waitUntil). Every D1 statement of both is recorded.

/** A Workers AI stand-in answering one small vector per text, and a Vectorize stand-in noting what it stores. */
function standIns(stored: string[]) {
  const AI = { run: async (_model: string, input: { text: string[] }) => ({ data: input.text.map((t) => [t.length % 7, 1, 0.5]) }) };
  const VECTORIZE = {
    upsert: async (items: { id: string }[]) => (stored.push(...items.map((i) => i.id)), { mutationId: "m" }),
    query: async () => ({ matches: [], count: 0 }),
    deleteByIds: async () => ({ mutationId: "m" }),
  };
  return { EMBEDDINGS_PROVIDER: "workers-ai", AI: AI as unknown as Ai, VECTORIZE: VECTORIZE as unknown as Vectorize };
}

/** One POST /memory through the Worker's fetch over recording databases, its deferred work run to its end. */
async function recordedWrite(headers: Record<string, string>, body: object): Promise<{ log: string[]; stored: string[]; id: string }> {
  const log: string[] = [];
  const stored: string[] = [];
  const recording = { ...env, DB: recordingD1(env.DB, log), SHARD_1: recordingD1(env.SHARD_1!, log), ...standIns(stored) } as Env;
  const request: Request<unknown, IncomingRequestCfProperties> = new Request("https://edgemind.test/memory", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, recording, ctx);
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await waitOnExecutionContext(ctx);
  return { log, stored, id };
}

/** A lookup of the mind's row; a write's quota guard reads the quotas stored there inside the write itself, and is not one. */
const readsMind = (sql: string) => /from "minds"|join "minds"/.test(sql) && !sql.includes('"quota_guard"');

describe("POST /memory reads the mind once", () => {
  it("over the request and its deferred embedding, with a human's token", async () => {
    const t = await newTenant();
    const { log, stored, id } = await recordedWrite(
      { Authorization: `Bearer ${t.token}`, "X-Mind-Id": t.mind.id },
      { category: "preference", key: "drink", content: "Drinks green tea in the morning" },
    );
    // The deferred work ran to its end: the memory has its vector.
    expect(stored).toEqual([id]);
    expect(await firstEverywhere("select state from embeddings where kind = 'memory' and row_id = ?", id)).toEqual({ state: "done" });
    console.log(`POST /memory (human's token): ${log.length} D1 statements over the request and its deferred embedding; ${log.filter(readsMind).length} read the mind`);
    expect(log.filter(readsMind)).toHaveLength(1);
  });

  it("over the request and its deferred embedding, with a mind key", async () => {
    const human = await newHuman();
    const mind = await newMind(human.token);
    const key = await newKey(human.token, mind.id);
    const { log, stored, id } = await recordedWrite({ Authorization: `Bearer ${key.key}` }, { category: "fact", key: "city", content: "Lives in Kazan" });
    expect(stored).toEqual([id]);
    console.log(`POST /memory (mind key): ${log.length} D1 statements over the request and its deferred embedding; ${log.filter(readsMind).length} read the mind`);
    expect(log.filter(readsMind)).toHaveLength(1);
  });
});

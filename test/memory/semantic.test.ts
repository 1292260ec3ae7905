import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { assembleContext, DEFAULT_CONTEXT_TOKENS } from "../../src/context/assemble";
import { createDeps, type Deps } from "../../src/deps";
import type { Embedder } from "../../src/embeddings/ports";
import { recordUsage, usageSince } from "../../src/llm/ledger";
import { MEANING_WEIGHT, reciprocalRankFusion } from "../../src/memory/fusion";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { deleteMemory, storeMemory, updateMemory } from "../../src/memory/memories";
import { addNote } from "../../src/notes/notes";
import { deleteMind, ERASURE_STALE_MS } from "../../src/portability/erase";
import { OPERATIONS, type OperationRef } from "../../src/portability/operations";
import type { Scope } from "../../src/tenancy/principal";
import { call, newTenant } from "../helpers";
import { depsOfMind, inMind, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { drain, memoryQueue, runCronWith, runNow } from "../support/jobs";
import { holdingD1 } from "../support/recording-d1";
import { conceptEmbedder, memoryIndex, semanticDeps } from "../support/semantic";
import { dataOf, firstEverywhere } from "../support/shards";

// The backfill sweeps every mind and it counts what it did: it starts from empty databases.
beforeAll(freshDatabases);

async function tenantScope(): Promise<{ scope: Scope; token: string; accountId: string }> {
  const t = await newTenant();
  return { scope: { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId }, agent: "default", agentFilter: null }, token: t.token, accountId: t.accountId };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Query embeddings the mind's usage ledger holds. */
async function embeddingCalls(mindId: string): Promise<number> {
  const rows = await usageSince(await depsOfMind(mindId), { mindId }, "2000-01-01");
  return rows.find((r) => r.purpose === "embedding")?.calls ?? 0;
}

const record = (kind: string, rowId: string) =>
  firstEverywhere<{ state: string; attempts: number; error: string | null }>("select state, attempts, error from embeddings where kind = ? and row_id = ?", kind, rowId);

describe("reciprocal rank fusion", () => {
  it("puts what both lists found first, then alternates by rank, ties in the first list's order", () => {
    const fused = reciprocalRankFusion([["a", "b", "c"], ["c", "d"]], (x) => x).map((f) => f.item);
    expect(fused).toEqual(["c", "a", "b", "d"]);
    const scores = reciprocalRankFusion([["a"], ["a"]], (x) => x);
    expect(scores[0]!.score).toBeCloseTo(2 / 61, 10);
  });

  it("weighs each list's votes by its weight: meaning's votes lift what both found, and what meaning alone found follows full text", () => {
    const lists = [["a", "b", "c"], ["x", "c"]];
    expect(reciprocalRankFusion(lists, (x) => x).map((f) => f.item)).toEqual(["c", "a", "x", "b"]);
    const weighted = reciprocalRankFusion(lists, (x) => x, [1, MEANING_WEIGHT]);
    expect(weighted.map((f) => f.item)).toEqual(["c", "a", "b", "x"]);
    expect(weighted.find((f) => f.item === "x")!.score).toBeCloseTo(MEANING_WEIGHT / 61, 10);
  });
});

describe("recall by meaning", () => {
  it("a context at the default budget fetches its 200 hits and asks the index for no more than it answers", async () => {
    const { scope } = await tenantScope();
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index: memoryIndex() });
    const inTenant = await inMind(deps, scope);
    await storeMemory(inTenant, { category: "preference", key: "coffee_order", content: "Любит кофе без сахара" });
    await settle();
    const context = await assembleContext(await inMind(deps, scope), { q: "what does she drink in the morning", max_tokens: DEFAULT_CONTEXT_TOKENS });
    expect(context.retrieval).toBe("hybrid");
    expect(context.system).toContain("Любит кофе без сахара");
  });

  it("embeds a written memory off the request path and finds it by meaning, fused with full-text search", async () => {
    const { scope } = await tenantScope();
    const index = memoryIndex();
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const inTenant = await inMind(deps, scope);
    const coffee = (await storeMemory(inTenant, { category: "preference", key: "coffee_order", content: "Любит кофе без сахара" })).memory;
    // The write answered before its embedding, which still waits on D1, could store a vector.
    expect(index.vectorsOf(scope.mindId).size).toBe(0);
    const deploy = (await storeMemory(inTenant, { category: "project", key: "release_day", content: "Ships on Fridays; drink water" })).memory;
    await settle();
    expect(index.vectorsOf(scope.mindId).size).toBe(2);
    expect(await record("memory", coffee.id)).toMatchObject({ state: "done", attempts: 0 });

    const lexicalOnly = await retrieveMemories(await inMind(semanticDeps(null).deps, scope), { q: "what does she drink in the morning", limit: 10 });
    expect(lexicalOnly.retrieval).toBe("full_text");
    expect(lexicalOnly.hits.map((h) => h.memory.id)).toEqual([deploy.id]);

    const hybrid = await retrieveMemories(await inMind(deps, scope), { q: "what does she drink in the morning", limit: 10 });
    expect(hybrid.retrieval).toBe("hybrid");
    // The coffee memory is first by meaning; the water memory is found by both lists.
    expect(new Set(hybrid.hits.map((h) => h.memory.id))).toEqual(new Set([coffee.id, deploy.id]));
    const usage = await (await dataOf(scope.mindId)).prepare("select calls, input_tokens from llm_usage where mind_id = ? and purpose = 'embedding'").bind(scope.mindId).first<{ calls: number }>();
    expect(usage!.calls).toBeGreaterThanOrEqual(2);
  });

  it("embeds after a write only the rows it marked: writes arriving while an embedding is in flight embed nothing twice", async () => {
    const { scope } = await tenantScope();
    const concepts = conceptEmbedder();
    const embedded: string[] = [];
    const slow: Embedder = {
      model: concepts.model,
      async embed(texts) {
        embedded.push(...texts);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return concepts.embed(texts);
      },
    };
    const { deps, settle } = semanticDeps({ embedder: slow, index: memoryIndex() });
    for (const [i, content] of ["tea at five", "coffee at nine", "water at noon"].entries()) {
      await storeMemory(await inMind(deps, scope), { category: "fact", key: `drink_${i}`, content });
    }
    await settle();
    expect(embedded).toHaveLength(3);
    expect(new Set(embedded).size).toBe(3);
  });

  it("re-embeds an updated memory and removes the vector of a deleted one", async () => {
    const { scope } = await tenantScope();
    const index = memoryIndex();
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const m = (await storeMemory(await inMind(deps, scope), { category: "fact", key: "evening", content: "tea in the evening" })).memory;
    await settle();
    const before = index.vectorsOf(scope.mindId).get(m.id)!.vector;
    await updateMemory(await inMind(deps, scope), m.id, { content: "coffee at night" });
    await settle();
    expect(index.vectorsOf(scope.mindId).get(m.id)!.vector).not.toEqual(before);
    await deleteMemory(await inMind(deps, scope), m.id);
    await settle();
    expect(index.vectorsOf(scope.mindId).has(m.id)).toBe(false);
    expect(await record("memory", m.id)).toBeNull();
  });

  it("never surfaces another mind's memory, even from an index that ignored the mind", async () => {
    const mine = await tenantScope();
    const theirs = await tenantScope();
    const index = memoryIndex({ leaky: true });
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    await storeMemory(await inMind(deps, mine.scope), { category: "fact", key: "tea_time", content: "Tea at five" });
    const secret = (await storeMemory(await inMind(deps, theirs.scope), { category: "preference", key: "coffee_secret", content: "Secret coffee order" })).memory;
    await settle();
    const found = await retrieveMemories(await inMind(deps, mine.scope), { q: "morning drink", limit: 10 });
    expect(found.retrieval).toBe("hybrid");
    expect(found.hits.map((h) => h.memory.id)).not.toContain(secret.id);
    expect(found.hits.every((h) => h.memory.mind_id === mine.scope.mindId)).toBe(true);
  });

  it("keeps a write when embedding fails, retries it from the record, and searches by full text when the query cannot be embedded", async () => {
    const { scope } = await tenantScope();
    const index = memoryIndex();
    const down = semanticDeps({ embedder: conceptEmbedder({ failWrites: true }), index });
    const m = (await storeMemory(await inMind(down.deps, scope), { category: "fact", key: "coffee_fact", content: "Coffee beans from Kenya" })).memory;
    await down.settle();
    expect(await record("memory", m.id)).toMatchObject({ state: "pending", attempts: 1, error: "embedder down" });
    await (await dataOf(scope.mindId)).prepare("update embeddings set next_attempt_at = ? where row_id = ?").bind(new Date(0).toISOString(), m.id).run();
    const up = semanticDeps({ embedder: conceptEmbedder(), index });
    const counts: Record<string, number | string> = {};
    await runNow("embeddings", up.deps, counts);
    expect(counts).toMatchObject({ embedded: 1, failed: 0 });
    expect(await record("memory", m.id)).toMatchObject({ state: "done" });

    const queryDown = semanticDeps({ embedder: conceptEmbedder({ failQueries: true }), index });
    const found = await retrieveMemories(await inMind(queryDown.deps, scope), { q: "coffee", limit: 5 });
    expect(found).toMatchObject({ retrieval: "full_text" });
    expect(found.hits.map((h) => h.memory.id)).toEqual([m.id]);
  });

  it("a search answers without waiting for its usage ledger write, which goes with the request's deferred work; where nothing defers it is written at once", async () => {
    const { scope } = await tenantScope();
    const index = memoryIndex();
    const written = semanticDeps({ embedder: conceptEmbedder(), index });
    const m = (await storeMemory(await inMind(written.deps, scope), { category: "preference", key: "coffee_order", content: "Любит кофе без сахара" })).memory;
    await written.settle();
    const before = await embeddingCalls(scope.mindId);

    // Writes to the ledger wait until the test lets them through; the search answers all the same.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ledgerWrite = (sql: string) => /^insert into "llm_usage"/.test(sql);
    const held = semanticDeps({ embedder: conceptEmbedder(), index }, testDeps({ wrap: (d1) => holdingD1(d1, ledgerWrite, gate) }));
    try {
      const answered = await Promise.race([retrieveMemories(await inMind(held.deps, scope), { q: "morning drink", limit: 5 }), sleep(5_000).then(() => "waited")]);
      expect(answered).toMatchObject({ retrieval: "hybrid", hits: [{ memory: { id: m.id } }] });
      expect(await embeddingCalls(scope.mindId)).toBe(before);
    } finally {
      release();
    }
    await held.settle();
    expect(await embeddingCalls(scope.mindId)).toBe(before + 1);

    const job = { ...testDeps(), semantic: { embedder: conceptEmbedder(), index } };
    expect((await retrieveMemories(await inMind(job, scope), { q: "morning drink", limit: 5 })).retrieval).toBe("hybrid");
    expect(await embeddingCalls(scope.mindId)).toBe(before + 2);
  });

  it("stops embedding at the daily budget: writes wait for tomorrow and search falls back to full text", async () => {
    const { scope, token } = await tenantScope();
    await call("PATCH", `/minds/${scope.mindId}`, { token, body: { settings: { daily_token_budget: 100 } } });
    const index = memoryIndex();
    const embedder = conceptEmbedder();
    const { deps, settle } = semanticDeps({ embedder, index });
    const first = (await storeMemory(await inMind(deps, scope), { category: "fact", key: "tea_fact", content: "Green tea" })).memory;
    await settle();
    expect(await record("memory", first.id)).toMatchObject({ state: "done" });
    await recordUsage(await inMind(deps, scope), { mindId: scope.mindId }, "chat", { inputTokens: 100, outputTokens: 0 }, false);
    const calls = embedder.calls;
    const second = (await storeMemory(await inMind(deps, scope), { category: "fact", key: "coffee_fact", content: "Black coffee" })).memory;
    await settle();
    expect(await record("memory", second.id)).toMatchObject({ state: "pending", attempts: 0 });
    const found = await retrieveMemories(await inMind(deps, scope), { q: "tea", limit: 5 });
    expect(found.retrieval).toBe("full_text");
    expect(embedder.calls).toBe(calls);
  });

  it("backfills rows written before it was turned on, and removes vectors of notes and minds that went", async () => {
    const { scope, accountId } = await tenantScope();
    const off = semanticDeps(null);
    const old = (await storeMemory(await inMind(off.deps, scope), { category: "fact", key: "old_fact", content: "Written before vectors" })).memory;
    const note = await addNote(await inMind(off.deps, scope), { text: "A note about coffee" });
    const index = memoryIndex();
    const on = semanticDeps({ embedder: conceptEmbedder(), index });
    const counts: Record<string, number | string> = {};
    await runNow("embeddings", on.deps, counts);
    expect(index.vectorsOf(scope.mindId).has(old.id)).toBe(true);
    expect(index.vectorsOf(scope.mindId).get(note.id)?.kind).toBe("note");

    // Consolidation and retention delete notes in SQL; the hourly job removes their vectors.
    await (await dataOf(scope.mindId)).prepare("delete from notes where id = ?").bind(note.id).run();
    await runNow("embeddings", on.deps, {});
    expect(index.vectorsOf(scope.mindId).has(note.id)).toBe(false);

    const erased = await deleteMind(on.deps, accountId, scope.mindId);
    expect(erased.embeddings).toBe(1);
    expect(index.vectorsOf(scope.mindId).size).toBe(0);
  });

  it("removes the vectors of a mind whose erasure the daily job finishes, as the request would", async () => {
    const { scope, accountId } = await tenantScope();
    const index = memoryIndex();
    const on = semanticDeps({ embedder: conceptEmbedder(), index });
    const kept = (await storeMemory(await inMind(on.deps, scope), { category: "fact", key: "kept_fact", content: "A fact with a vector" })).memory;
    await on.settle();
    expect(await record("memory", kept.id)).toMatchObject({ state: "done" });
    // The request marks the mind, then dies while removing its vectors.
    const down = { ...index, remove: () => Promise.reject(new Error("vector index unavailable")) };
    await expect(deleteMind(semanticDeps({ embedder: conceptEmbedder(), index: down }).deps, accountId, scope.mindId)).rejects.toThrow();
    expect(await record("memory", kept.id)).not.toBeNull();

    // The daily job hands it back to the mind's operations object, which finishes it in a deployment
    // with an embedder and a vector index (here the object's run is driven with those deps).
    const removed: string[] = [];
    const vectorize = { deleteByIds: async (ids: string[]) => (removed.push(...ids), { mutationId: "m" }) } as unknown as Vectorize;
    const configured = { ...env, EMBEDDINGS_BASE_URL: "https://embeddings.test/v1", EMBEDDINGS_MODEL: "test-concepts", VECTORIZE: vectorize };
    const started: OperationRef[] = [];
    const mindOperations = { idFromName: (name: string) => name, get: () => ({ start: async (ref: OperationRef) => (started.push(ref), true) }) } as unknown as Deps["mindOperations"];
    const deps = { ...createDeps(configured, { clock: { now: () => new Date(Date.now() + ERASURE_STALE_MS + 60_000) } }), mindOperations, queue: memoryQueue() };
    const runs = await runCronWith(deps, "30 3 * * *");
    expect(runs.find((r) => r.job === "retention")).toMatchObject({ error: null, counts: { enqueued: expect.any(Number) } });
    expect(await drain(deps)).toMatchObject({ erasures_handed_on: expect.any(Number) });
    expect(started).toContainEqual({ kind: "erase", mindId: scope.mindId });
    expect(await record("memory", kept.id)).not.toBeNull();
    while (await OPERATIONS.erase.run(deps, { kind: "erase", mindId: scope.mindId }, () => true, async () => undefined));
    expect(removed).toContain(kept.id);
    expect(await record("memory", kept.id)).toBeNull();
    expect(await firstEverywhere("select id from minds where id = ?", scope.mindId)).toBeNull();
  });

  it("changes nothing where no embedder is configured: no records, full-text search", async () => {
    const { scope, token } = await tenantScope();
    const { deps } = semanticDeps(null);
    const m = (await storeMemory(await inMind(deps, scope), { category: "fact", key: "plain", content: "Plain full text" })).memory;
    expect(await record("memory", m.id)).toBeNull();
    expect((await retrieveMemories(await inMind(deps, scope), { q: "plain", limit: 5 })).retrieval).toBe("full_text");
    const res = await call("GET", "/memory/search?q=plain", { token, mind: scope.mindId });
    expect(res.json).toMatchObject({ retrieval: "full_text", results: [{ id: m.id }] });
  });
});

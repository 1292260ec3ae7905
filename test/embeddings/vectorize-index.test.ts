import { describe, expect, it } from "vitest";
import { bucketOf, VECTOR_BUCKETS } from "../../src/embeddings/vectorize-index";
import { MAX_TOP_K } from "../../src/memory/vectors";
import { memoryIndex } from "../support/semantic";

// The vector index over Vectorize, against an in-memory binding that refuses what Vectorize
// refuses: minds share a fixed set of namespaces and a query filters on the mind.

const unit = (d: number, dimensions = 8) => Array.from({ length: dimensions }, (_, i) => (i === d ? 1 : 0));
const item = (id: string, vector: number[]) => ({ id, vector, kind: "memory" as const, agent: "default" });

describe("the Vectorize index", () => {
  it("holds more minds than the index holds namespaces, each answering with its own vectors alone", async () => {
    const index = memoryIndex({ namespaceCap: 5, buckets: 3 });
    const minds = Array.from({ length: 8 }, (_, i) => `mind_${i}`);
    for (const mind of minds) await index.upsert(mind, [item(`${mind}_v`, unit(0))]);
    expect(new Set([...index.binding.vectors.values()].map((v) => v.namespace)).size).toBeLessThanOrEqual(3);
    for (const mind of minds) {
      expect(await index.query(mind, unit(0), { topK: 10, kind: "memory", agent: null })).toEqual([{ id: `${mind}_v`, score: 1 }]);
    }
    // One namespace per mind, as before, stops at the cap.
    const perMind = memoryIndex({ namespaceCap: 5 }).binding;
    for (const mind of minds.slice(0, 5)) await perMind.upsert([{ id: `${mind}_v`, values: unit(0), namespace: mind }]);
    await expect(perMind.upsert([{ id: "mind_5_v", values: unit(0), namespace: "mind_5" }])).rejects.toThrow(/at most 5 namespaces/);
  });

  it("answers a mind's query from its own vectors however many nearer ones other minds keep in its namespace", async () => {
    const index = memoryIndex({ buckets: 1 });
    await index.upsert("crowd", Array.from({ length: MAX_TOP_K + 20 }, (_, i) => item(`crowd_${i}`, unit(0))));
    await index.upsert("quiet", [item("quiet_v", [0.6, 0.8, 0, 0, 0, 0, 0, 0])]);
    const matches = await index.query("quiet", unit(0), { topK: MAX_TOP_K, kind: "memory", agent: null });
    expect(matches.map((m) => m.id)).toEqual(["quiet_v"]);
  });

  it("keeps a namespace's name within Vectorize's 64 bytes and the bucket of a mind fixed", () => {
    expect(bucketOf("mind_a")).toBe(bucketOf("mind_a"));
    const used = new Set(Array.from({ length: 2000 }, (_, i) => bucketOf(`mind_${i}`)));
    expect(used.size).toBeLessThanOrEqual(VECTOR_BUCKETS);
    expect(used.size).toBeGreaterThan(VECTOR_BUCKETS / 2);
    expect([...used].every((name) => new TextEncoder().encode(name).length <= 64)).toBe(true);
  });

  it("moves a mind's vectors from its own namespace into its bucket with the mind in metadata, and leaves another mind's alone", async () => {
    // A deployment from before: metadata indexes on kind and agent, one namespace per mind.
    const index = memoryIndex({ metadataIndexes: ["kind", "agent"] });
    const { binding } = index;
    await binding.upsert([
      { id: "a_1", values: unit(1), namespace: "mind_a", metadata: { kind: "note", agent: "bot" } },
      { id: "b_1", values: unit(1), namespace: "mind_b", metadata: { kind: "note", agent: "bot" } },
    ]);
    binding.createMetadataIndex("mind");
    // Written without the mind, the old vectors answer no query.
    expect(await index.query("mind_a", unit(1), { topK: 5, kind: "note", agent: null })).toEqual([]);
    expect(await index.rewrite("mind_a", ["a_1", "b_1", "gone"])).toEqual(["a_1"]);
    expect(binding.vectors.get("a_1")).toMatchObject({ namespace: bucketOf("mind_a"), metadata: { mind: "mind_a", kind: "note", agent: "bot" } });
    expect(binding.vectors.get("b_1")).toMatchObject({ namespace: "mind_b" });
    expect(await index.query("mind_a", unit(1), { topK: 5, kind: "note", agent: "bot" })).toEqual([{ id: "a_1", score: 1 }]);
  });

  it("refuses what Vectorize refuses: a topK over its limits, a filter on a property without a metadata index", async () => {
    const { binding } = memoryIndex({ metadataIndexes: ["kind"] });
    await expect(binding.query(unit(0), { topK: MAX_TOP_K + 1 })).rejects.toThrow(/max top K is 100/);
    await expect(binding.query(unit(0), { topK: 21, returnMetadata: "all" })).rejects.toThrow(/max top K is 20/);
    await binding.upsert([{ id: "v", values: unit(0), namespace: "n", metadata: { kind: "memory", mind: "m" } }]);
    expect((await binding.query(unit(0), { filter: { kind: "memory" } })).matches).toHaveLength(1);
    expect((await binding.query(unit(0), { filter: { mind: "m" } })).matches).toHaveLength(0);
  });
});

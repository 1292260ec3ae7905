import { beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/embeddings/ports";
import { bucketOf } from "../../src/embeddings/vectorize-index";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { storeMemory } from "../../src/memory/memories";
import { retrieveNotes } from "../../src/notes/hybrid-search";
import { addNote } from "../../src/notes/notes";
import type { Scope } from "../../src/tenancy/principal";
import { newTenant } from "../helpers";
import { inMind } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { runNow } from "../support/jobs";
import { conceptEmbedder, memoryIndex, semanticDeps } from "../support/semantic";
import { dataOf, firstEverywhere } from "../support/shards";

// Minds share a fixed set of Vectorize namespaces, so recall by meaning outlives the index's cap
// on namespaces; vectors an older deployment wrote one namespace per mind are moved, not embedded again.

// The vectors job sweeps every mind and counts what it did: it starts from empty databases.
beforeAll(freshDatabases);

async function tenantScope(): Promise<Scope> {
  const t = await newTenant();
  return { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId }, agent: "default", agentFilter: null };
}

const record = (kind: string, rowId: string) =>
  firstEverywhere<{ state: string; vector_layout: number }>("select state, vector_layout from embeddings where kind = ? and row_id = ?", kind, rowId);

/** An embedder that remembers what it was asked to embed. */
function watched(embedder: Embedder): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return { model: embedder.model, texts, embed: (batch) => (texts.push(...batch), embedder.embed(batch)) };
}

describe("vectors past the index's namespaces", () => {
  it("more minds than the index holds namespaces each find their own memories by meaning, and only theirs", async () => {
    const index = memoryIndex({ namespaceCap: 5, buckets: 3 });
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const minds: { scope: Scope; id: string }[] = [];
    for (let i = 0; i < 7; i++) {
      const scope = await tenantScope();
      const { memory } = await storeMemory(await inMind(deps, scope), { category: "preference", key: "coffee_order", content: "Любит кофе без сахара" });
      minds.push({ scope, id: memory.id });
    }
    await settle();
    for (const { scope, id } of minds) {
      expect(await record("memory", id)).toMatchObject({ state: "done" });
      const found = await retrieveMemories(await inMind(deps, scope), { q: "what does she drink in the morning", limit: 10 });
      expect(found.retrieval).toBe("hybrid");
      expect(found.hits.map((h) => h.memory.id)).toEqual([id]);
    }
  });

  it("moves vectors written one namespace per mind into the shared ones without embedding them again, and embeds again one the index lost", async () => {
    const scope = await tenantScope();
    const index = memoryIndex();
    const embedder = watched(conceptEmbedder());
    const { deps, settle } = semanticDeps({ embedder, index });
    const coffee = (await storeMemory(await inMind(deps, scope), { category: "preference", key: "coffee_order", content: "Любит кофе без сахара" })).memory;
    const tea = (await storeMemory(await inMind(deps, scope), { category: "preference", key: "tea_order", content: "Зелёный чай" })).memory;
    const note = await addNote(await inMind(deps, scope), { text: "She drinks tea in the morning" });
    await settle();

    // As the deployment before left them: in the mind's own namespace, without the mind in metadata.
    for (const v of index.vectorsOf(scope.mindId).values()) {
      await index.binding.upsert([{ id: v.id, values: v.vector, namespace: scope.mindId, metadata: { kind: v.kind, agent: v.agent } }]);
    }
    await index.binding.deleteByIds([tea.id]);
    await (await dataOf(scope.mindId)).prepare("update embeddings set vector_layout = 1 where mind_id = ?").bind(scope.mindId).run();
    expect((await retrieveMemories(await inMind(deps, scope), { q: "morning drink", limit: 10 })).retrieval).toBe("full_text");

    embedder.texts.length = 0;
    const counts = await runNow("embeddings", deps);
    expect(counts).toMatchObject({ vectors_moved: 2, vectors_reembedded: 1 });
    expect(embedder.texts.filter((t) => !t.startsWith("tea order"))).toEqual([]);
    expect(embedder.texts).toHaveLength(1);
    for (const [kind, id] of [["memory", coffee.id], ["memory", tea.id], ["note", note.id]] as const) {
      expect(await record(kind, id)).toEqual({ state: "done", vector_layout: 2 });
      expect(index.binding.vectors.get(id)).toMatchObject({ namespace: bucketOf(scope.mindId), metadata: { mind: scope.mindId } });
    }

    const memories = await retrieveMemories(await inMind(deps, scope), { q: "what does she drink in the morning", limit: 10 });
    expect(memories.retrieval).toBe("hybrid");
    expect(memories.hits.map((h) => h.memory.id)).toContain(coffee.id);
    const notes = await retrieveNotes(await inMind(deps, scope), { q: "чай", limit: 10 });
    expect(notes.hits.map((h) => h.note.id)).toContain(note.id);
    expect(await runNow("embeddings", deps)).toMatchObject({ vectors_moved: 0, vectors_reembedded: 0 });
  });
});

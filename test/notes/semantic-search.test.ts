import { describe, expect, it } from "vitest";
import { assembleContext } from "../../src/context/assemble";
import { storeMemory } from "../../src/memory/memories";
import { retrieveMemoriesAndNotes, retrieveNotes } from "../../src/notes/hybrid-search";
import { addNote } from "../../src/notes/notes";
import type { Scope } from "../../src/tenancy/principal";
import { call, newKey, newTenant } from "../helpers";
import { inMind } from "../support/deps";
import { conceptEmbedder, memoryIndex, semanticDeps } from "../support/semantic";

async function tenant() {
  const t = await newTenant();
  const scope: Scope = { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId }, agent: "default", agentFilter: null };
  return { ...t, scope };
}

describe("note search by meaning", () => {
  it("fuses full-text search with the notes nearest in meaning, and says so", async () => {
    const { scope } = await tenant();
    const index = memoryIndex();
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const coffee = await addNote(await inMind(deps, scope), { text: "Любит кофе без сахара" });
    const water = await addNote(await inMind(deps, scope), { text: "Drinks water while coding" });
    await settle();
    expect(index.vectorsOf(scope.mindId).get(coffee.id)?.kind).toBe("note");

    const lexical = await retrieveNotes(await inMind(semanticDeps(null).deps, scope), { q: "what does she drink in the morning", limit: 10 });
    expect(lexical).toMatchObject({ retrieval: "full_text", hits: [{ note: { id: water.id } }] });
    expect(lexical.hits).toHaveLength(1);

    const fused = await retrieveNotes(await inMind(deps, scope), { q: "what does she drink in the morning", limit: 10 });
    expect(fused.retrieval).toBe("hybrid");
    // Found by meaning alone, the Russian note joins the one both lists found, which ranks first.
    expect(fused.hits.map((h) => h.note.id)).toEqual([water.id, coffee.id]);
    expect(fused.hits[0]!.score).toBeGreaterThan(fused.hits[1]!.score);
    expect((await retrieveNotes(await inMind(deps, scope), { q: "morning coffee", limit: 1 })).hits.map((h) => h.note.id)).toEqual([coffee.id]);
  });

  it("never returns another mind's note or another namespace's to a scoped reader, even from an index that ignores the mind", async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const index = memoryIndex({ leaky: true });
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const own = await addNote(await inMind(deps, mine.scope), { text: "Tea at five" });
    const coder = await addNote(await inMind(deps, { ...mine.scope, agent: "coder" }), { text: "Coffee before standup" });
    const secret = await addNote(await inMind(deps, theirs.scope), { text: "Secret coffee order" });
    await settle();

    const everyNamespace = await retrieveNotes(await inMind(deps, mine.scope), { q: "morning drink", limit: 10 });
    expect(everyNamespace.retrieval).toBe("hybrid");
    // Another namespace of the same mind is the reader's own; the other mind's coffee is not.
    expect(everyNamespace.hits.map((h) => h.note.id)).toEqual([coder.id]);
    expect(everyNamespace.hits.map((h) => h.note.id)).not.toContain(secret.id);

    const scoped = await retrieveNotes(await inMind(deps, { ...mine.scope, agent: "default", agentFilter: "default" }), { q: "coffee", limit: 10 });
    expect(scoped).toMatchObject({ retrieval: "hybrid", hits: [] });
    const tea = await retrieveNotes(await inMind(deps, { ...mine.scope, agentFilter: "default" }), { q: "чай", limit: 10 });
    expect(tea.hits.map((h) => h.note.id)).toEqual([own.id]);
  });

  it("falls back to full text when the query cannot be embedded, and the context assembly finds notes by meaning too", async () => {
    const { scope } = await tenant();
    const index = memoryIndex();
    const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
    const note = await addNote(await inMind(deps, scope), { text: "Любит кофе без сахара" });
    await settle();

    const down = semanticDeps({ embedder: conceptEmbedder({ failQueries: true }), index });
    const fallback = await retrieveNotes(await inMind(down.deps, scope), { q: "кофе", limit: 5 });
    expect(fallback).toMatchObject({ retrieval: "full_text", hits: [{ note: { id: note.id } }] });
    expect((await retrieveNotes(await inMind(down.deps, scope), { q: "morning drink", limit: 5 })).hits).toEqual([]);

    const context = await assembleContext(await inMind(deps, scope), { q: "what do I drink in the morning?", max_tokens: 2000 });
    expect(context.retrieval).toBe("hybrid");
    expect(context.system).toContain("Любит кофе без сахара");
  });

  it("embeds the query once for a context assembly, and once for a search of memories and notes together", async () => {
    const { scope } = await tenant();
    const embedder = conceptEmbedder();
    const { deps, settle } = semanticDeps({ embedder, index: memoryIndex() });
    const memory = (await storeMemory(await inMind(deps, scope), { category: "preference", key: "tea_order", content: "Green tea after lunch" })).memory;
    const note = await addNote(await inMind(deps, scope), { text: "Любит кофе без сахара" });
    await settle();
    const before = embedder.calls;

    const context = await assembleContext(await inMind(deps, scope), { q: "what does she drink in the morning?", max_tokens: 2000 });
    expect(context.retrieval).toBe("hybrid");
    expect(context.system).toContain("Любит кофе без сахара");
    expect(embedder.calls).toBe(before + 1);

    const both = await retrieveMemoriesAndNotes(await inMind(deps, scope), { q: "чай или кофе", limit: 10 });
    expect(both.memories).toMatchObject({ retrieval: "hybrid", hits: [{ memory: { id: memory.id } }] });
    expect(both.notes).toMatchObject({ retrieval: "hybrid", hits: [{ note: { id: note.id } }] });
    expect(embedder.calls).toBe(before + 2);
  });

  it("answers /notes/search with the retrieval used (full text where the Worker has no embedder)", async () => {
    const t = await tenant();
    const key = await newKey(t.token, t.mind.id, "coder");
    await call("POST", "/notes", { token: key.key, body: { text: "Запускает тесты перед пушем" } });
    const res = await call("GET", `/notes/search?q=${encodeURIComponent("тесты")}`, { token: t.token, mind: t.mind.id });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ retrieval: "full_text", results: [{ text: "Запускает тесты перед пушем", agent: "coder" }] });
  });
});

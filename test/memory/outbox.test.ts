import { describe, expect, it } from "vitest";
import { deleteMemory, storeMemory, updateMemory, verifyMemory } from "../../src/memory/memories";
import { saveExtraction } from "../../src/notes/extraction";
import { addNote, deleteNote, verifyNote } from "../../src/notes/notes";
import type { Scope } from "../../src/tenancy/principal";
import { newTenant } from "../helpers";
import { inMind } from "../support/deps";
import { conceptEmbedder, memoryIndex, semanticDeps } from "../support/semantic";
import { firstEverywhere, rowsEverywhere } from "../support/shards";

// Every write of memories and notes goes through the after-write seam (src/memory/outbox.ts):
// what must follow a change (here, its vector) is decided there, whichever write made it.

async function semanticMind() {
  const t = await newTenant();
  const scope: Scope = { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId }, agent: "default", agentFilter: null };
  const index = memoryIndex();
  const { deps, settle } = semanticDeps({ embedder: conceptEmbedder(), index });
  return { mindContext: await inMind(deps, scope), index, settle, mindId: t.mind.id };
}

const stateOf = async (rowId: string) =>
  (await firstEverywhere<{ state: string }>("select state from embeddings where row_id = ?", rowId))?.state ?? null;

describe("the after-write seam", () => {
  it("marks what a memory write changed the text of, embeds it after the answer, and removes a deleted memory's vector", async () => {
    const { mindContext, index, settle, mindId } = await semanticMind();
    const { memory } = await storeMemory(mindContext, { category: "preference", key: "tea", content: "Drinks green tea" });
    expect(await stateOf(memory.id)).toBe("pending");
    await settle();
    expect(await stateOf(memory.id)).toBe("done");
    // Neither a change of priority nor a verification changes the embedded text: nothing is marked.
    await updateMemory(mindContext, memory.id, { priority: "high" });
    await verifyMemory(mindContext, memory.id);
    expect(await stateOf(memory.id)).toBe("done");
    await updateMemory(mindContext, memory.id, { content: "Drinks black tea" });
    expect(await stateOf(memory.id)).toBe("pending");
    await settle();
    expect(index.vectorsOf(mindId).has(memory.id)).toBe(true);
    await deleteMemory(mindContext, memory.id);
    await settle();
    expect(index.vectorsOf(mindId).has(memory.id)).toBe(false);
    expect(await stateOf(memory.id)).toBeNull();
  });

  it("describes a supersession apart from the write: the newest statement is embedded, the statements it replaced are not marked again", async () => {
    const { mindContext, settle, mindId } = await semanticMind();
    const { memory: tea } = await storeMemory(mindContext, { category: "preference", key: "tea", content: "Drinks green tea" });
    const { memory: coffee } = await storeMemory(mindContext, { category: "preference", key: "coffee", content: "Drinks coffee" });
    await settle();
    await storeMemory(mindContext, { category: "preference", key: "tea", content: "Drinks black tea", supersedes: "coffee" });
    const past = await firstEverywhere<{ id: string }>("select id from memories where mind_id = ? and superseded_by = ? and key like 'tea#%'", mindId, tea.id);
    expect(past).not.toBeNull();
    expect(await stateOf(tea.id)).toBe("pending");
    expect(await stateOf(coffee.id)).toBe("done");
    expect(await stateOf(past!.id)).toBeNull();
    await settle();
    expect(await stateOf(tea.id)).toBe("done");
  });

  it("embeds a note written by hand after the answer, leaves it embedded when a person confirms it, and removes its vector when it is deleted", async () => {
    const { mindContext, index, settle, mindId } = await semanticMind();
    const note = await addNote(mindContext, { text: "Keeps the release notes in the wiki" });
    await settle();
    expect(index.vectorsOf(mindId).has(note.id)).toBe(true);
    await verifyNote(mindContext, note.id);
    expect(await stateOf(note.id)).toBe("done");
    await deleteNote(mindContext, note.id);
    await settle();
    expect(index.vectorsOf(mindId).has(note.id)).toBe(false);
  });

  it("marks an extraction's notes in its own batch and embeds them after it, and only the notes it wrote", async () => {
    const { mindContext, index, settle, mindId } = await semanticMind();
    await addNote(mindContext, { text: "Uses Postgres 16" });
    const drafts = ["uses postgres 16.", "Uses Redis for queues"].map((text) => ({ text, category_hint: "context" as const, signal: "fact" as const, confidence: 0.7, context: "" }));
    const plan = { status: "extracted" as const, notes: drafts, cursor: "m0001", modelCalls: 1 };
    expect(await saveExtraction(mindContext, { sessionId: `ses_${mindId}`, cursor: null, messages: [] }, plan)).toEqual({ written: 1, replaced: 0 });
    const marked = await rowsEverywhere<{ state: string }>("select state from embeddings where mind_id = ? and kind = 'note'", mindId);
    expect(marked).toHaveLength(2);
    await settle();
    expect(index.vectorsOf(mindId).size).toBe(2);
  });
});

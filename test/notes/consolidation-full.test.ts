import { describe, expect, it } from "vitest";
import { answer } from "../../scripts/model-stand-in-answers.mjs";
import { consolidateUnit } from "../../src/jobs/consolidation";
import { COLD_STORED_MAX_CHARS } from "../../src/notes/cold-store";
import { call } from "../helpers";
import { testDeps } from "../support/deps";
import { coldOf, documentOf, newNotesMind, seedNotes, storedNotes, writeColdAsConsolidation } from "../support/long-term";
import { scriptedModel, type Turn } from "../support/scripted-model";

// A consolidation whose document would pass COLD_STORED_MAX_CHARS writes nothing: it records
// why and how to make room, its notes wait, and the hourly unit does not try that version again.

const target = (mindId: string) => ({ mindId, agent: "default" });

/** The stand-in model server's own answers (scripts/model-stand-in.mjs), played in process. */
const standIn: Turn = (prompt, _call, system) =>
  answer({
    messages: [
      { role: "system", content: system },
      { role: "user", content: prompt },
    ],
  });

/** A notes mind whose cold memory is `text`, written as a consolidation writes it (to the stored bound). */
async function mindWithCold(text: string) {
  const m = await newNotesMind();
  await writeColdAsConsolidation(m.mindId, text);
  return m;
}

const longNote = (label: string) => `${label} keeps bees on the roof ${"and tends them every morning ".repeat(30)}`.trim();

async function consolidationsListed(m: Awaited<ReturnType<typeof newNotesMind>>) {
  const res = await call("GET", "/cold/consolidations", m.auth);
  expect(res.status).toBe(200);
  return res.json.consolidations as { status: string; error: string | null; error_code: string | null; from_version: number | null }[];
}

describe("a cold memory that would pass its stored bound", () => {
  it("without a model: nothing written, the notes wait, the error says how to make room, and later runs skip it until an edit", async () => {
    const m = await mindWithCold(documentOf(COLD_STORED_MAX_CHARS - 300));
    const before = await coldOf(m.mindId);
    await seedNotes(m.mindId, [longNote("First"), longNote("Second")], "profile");
    const deps = testDeps();

    expect(await consolidateUnit(deps, target(m.mindId))).toEqual({ status: "done", counts: { cold_full: 1 } });
    expect(await coldOf(m.mindId)).toEqual(before);
    const waiting = await storedNotes(m.mindId);
    expect(waiting.map((n) => [n.text, n.consolidationId])).toEqual([
      [longNote("First"), null],
      [longNote("Second"), null],
    ]);
    const [failed, ...others] = await consolidationsListed(m);
    expect(others).toEqual([]);
    expect(failed).toMatchObject({ status: "failed", error_code: "cold_memory_full", from_version: 1 });
    expect(failed!.error).toMatch(/^cold_memory_full: cold memory is full: it holds [\d,]+ characters of at most 256,000, and folding 2 notes would take it to [\d,]+\./);
    expect(failed!.error).toContain("PUT /cold");

    // The same version is not tried again: nothing claimed, nothing recorded.
    expect(await consolidateUnit(deps, target(m.mindId))).toEqual({ status: "done", counts: { cold_full: 1 } });
    expect(await consolidationsListed(m)).toHaveLength(1);
    expect(await storedNotes(m.mindId)).toHaveLength(2);

    // A person makes room; the next run folds the notes.
    const edited = await call("PUT", "/cold", { ...m.auth, body: { text: "## Profile\n- Lives in Lisbon\n", version: before.version } });
    expect(edited.status).toBe(200);
    expect(await consolidateUnit(deps, target(m.mindId))).toMatchObject({ status: "done", counts: { done: 1, folded_notes: 2 } });
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect((await coldOf(m.mindId)).text).toContain(longNote("Second"));
  });

  it("with the stand-in model: the model is asked once, and not again while the document is unchanged", async () => {
    const m = await mindWithCold(documentOf(COLD_STORED_MAX_CHARS - 300));
    const before = await coldOf(m.mindId);
    await seedNotes(m.mindId, [longNote("First"), longNote("Second")], "profile");
    const model = scriptedModel([standIn]);
    const deps = testDeps({ llm: model.model });

    expect(await consolidateUnit(deps, target(m.mindId))).toEqual({ status: "done", counts: { cold_full: 1 } });
    const calls = model.prompts.length;
    expect(calls).toBeGreaterThan(0);
    expect(await coldOf(m.mindId)).toEqual(before);
    expect(await storedNotes(m.mindId)).toHaveLength(2);
    expect(await consolidationsListed(m)).toMatchObject([{ status: "failed", error_code: "cold_memory_full" }]);

    for (let run = 0; run < 3; run++) expect(await consolidateUnit(deps, target(m.mindId))).toEqual({ status: "done", counts: { cold_full: 1 } });
    expect(model.prompts).toHaveLength(calls);
    expect(await consolidationsListed(m)).toHaveLength(1);
  });

  it("a document already at the bound is found full before any model call", async () => {
    const text = documentOf(COLD_STORED_MAX_CHARS + 300);
    expect(text.length).toBeGreaterThanOrEqual(COLD_STORED_MAX_CHARS);
    const m = await mindWithCold(text);
    await seedNotes(m.mindId, ["Keeps bees"], "profile");
    const model = scriptedModel([standIn]);

    expect(await consolidateUnit(testDeps({ llm: model.model }), target(m.mindId))).toEqual({ status: "done", counts: { cold_full: 1 } });
    expect(model.prompts).toEqual([]);
    const [failed] = await consolidationsListed(m);
    expect(failed!.error).toMatch(/^cold_memory_full: cold memory is full: it holds [\d,]+ characters of at most 256,000\. The notes wait/);
    expect(await storedNotes(m.mindId)).toHaveLength(1);
  });
});

import { describe, expect, it } from "vitest";
import { answer } from "../../scripts/model-stand-in-answers.mjs";
import { consolidateUnit } from "../../src/jobs/consolidation";
import { updateCold } from "../../src/notes/cold-memory";
import { DEFAULT_CONSOLIDATION } from "../../src/notes/consolidate";
import { MODEL_SECTION_FACTS } from "../../src/notes/merge";
import type { UnitOutcome } from "../../src/queue/handlers";
import { inMind, testDeps } from "../support/deps";
import { coldOf, consolidationsOf, foldingTurn, newNotesMind, occurrences, seedNotes, storedNotes } from "../support/long-term";
import { scriptedModel, section, type Turn } from "../support/scripted-model";

// A namespace whose document grows past what one model answer holds still consolidates: the
// model is shown a bounded part of the document and of the notes, and whatever it cannot be
// shown is kept as it is. Each unit run folds up to DEFAULT_CONSOLIDATION.maxNotes notes.

const target = (mindId: string) => ({ mindId, agent: "default" });

/** Runs the namespace's consolidation unit as the queue would, again while it asks for more. */
async function runUnitUntilDone(deps: ReturnType<typeof testDeps>, mindId: string, most: number) {
  const outcomes: UnitOutcome[] = [];
  for (let run = 0; run < most; run++) {
    const outcome = await consolidateUnit(deps, target(mindId));
    outcomes.push(outcome);
    if (outcome.status !== "done" || !outcome.more) break;
  }
  return outcomes;
}

const facts = (count: number, label: string) => Array.from({ length: count }, (_, i) => `${label} fact number ${i}`);

/** The stand-in model server's own answers (scripts/model-stand-in.mjs), played in process. */
const standIn: Turn = (prompt, _call, system) =>
  answer({
    messages: [
      { role: "system", content: system },
      { role: "user", content: prompt },
    ],
  });

describe("a namespace larger than one model answer", () => {
  it("250 notes are folded in three unit runs, every fact once, no failure", async () => {
    const m = await newNotesMind();
    const texts = facts(250, "Backlog");
    await seedNotes(m.mindId, texts);
    const model = scriptedModel([foldingTurn]);

    const outcomes = await runUnitUntilDone(testDeps({ llm: model.model }), m.mindId, 10);
    expect(outcomes.map((o) => o.status)).toEqual(["done", "done", "done"]);
    expect(await storedNotes(m.mindId)).toEqual([]);
    const text = (await coldOf(m.mindId)).text;
    for (const fact of texts) expect(occurrences(text, fact)).toBe(1);
    expect((await consolidationsOf(m.mindId)).map((c) => c.status)).toEqual(["done", "done", "done"]);
    // The model never saw more of a section than its answer may hold with the notes added.
    for (const prompt of model.prompts) {
      expect(section(prompt, "document").length + section(prompt, "notes").length).toBeLessThanOrEqual(MODEL_SECTION_FACTS + 1);
    }
  });

  it("a cold document already past the bound keeps every fact and takes the new notes", async () => {
    const m = await newNotesMind();
    const old = facts(400, "Written");
    const scope = { mindId: m.mindId, agent: "default", agentFilter: null, principal: { kind: "human" as const, accountId: m.accountId } };
    await updateCold(await inMind(testDeps(), scope), { text: `## Profile\n${old.map((f) => `- ${f}`).join("\n")}\n`, version: 0 });
    const texts = facts(30, "Noted");
    await seedNotes(m.mindId, texts, "profile");

    const outcomes = await runUnitUntilDone(testDeps({ llm: scriptedModel([foldingTurn]).model }), m.mindId, 3);
    expect(outcomes).toMatchObject([{ status: "done", more: false }]);
    const text = (await coldOf(m.mindId)).text;
    for (const fact of [...old, ...texts]) expect(occurrences(text, fact)).toBe(1);
    // Older facts stay ahead of newer ones.
    expect(text.indexOf("Written fact number 0")).toBeLessThan(text.indexOf("Written fact number 399"));
    expect(text.indexOf("Written fact number 399")).toBeLessThan(text.indexOf("Noted fact number 0"));
  });

  it("an answer past the bound folds that part deterministically at once, without a second call", async () => {
    const m = await newNotesMind();
    await m.addNote("Keeps bees", "profile");
    await m.addNote("keeps bees.", "profile");
    await m.addNote("Prefers tea", "preferences");
    const runaway = JSON.stringify({ profile: facts(MODEL_SECTION_FACTS + 1, "Invented") });
    const model = scriptedModel([runaway]);

    const outcomes = await runUnitUntilDone(testDeps({ llm: model.model }), m.mindId, 3);
    expect(outcomes).toMatchObject([{ status: "done", counts: { model_calls: 1, offline_parts: 1 } }]);
    expect(model.prompts).toHaveLength(1);
    expect((await coldOf(m.mindId)).text).toBe("## Profile\n- Keeps bees\n\n## Preferences\n- Prefers tea\n");
    expect((await consolidationsOf(m.mindId)).map((c) => c.status)).toEqual(["done"]);
  });

  it("a note longer than a short fact is folded by the model as it is", async () => {
    const m = await newNotesMind();
    const long = `Setup notes: ${"the staging cluster runs on three nodes behind one balancer; ".repeat(20)}`.trim();
    await m.addNote(long, "context");
    const outcomes = await runUnitUntilDone(testDeps({ llm: scriptedModel([foldingTurn]).model }), m.mindId, 3);
    expect(outcomes).toMatchObject([{ status: "done", counts: { offline_parts: 0 } }]);
    expect(occurrences((await coldOf(m.mindId)).text, long)).toBe(1);
  });

  it("10,000 notes are folded by the stand-in model in 100 unit runs, every fact once", { timeout: 120_000 }, async () => {
    const m = await newNotesMind();
    // Facts short enough that all 10,000 fit the stored bound (COLD_STORED_MAX_CHARS).
    const texts = facts(10_000, "Seed");
    await seedNotes(m.mindId, texts);
    const model = scriptedModel([standIn]);

    // Each run folds one claim of maxNotes; after a full claim the unit looks once more and finds none.
    const runs = Math.ceil(texts.length / DEFAULT_CONSOLIDATION.maxNotes);
    const outcomes = await runUnitUntilDone(testDeps({ llm: model.model }), m.mindId, runs + 5);
    expect(outcomes.filter((o) => o.status === "done" && o.counts?.done === 1)).toHaveLength(runs);
    expect(outcomes.slice(runs)).toEqual([{ status: "done", counts: { nothing: 1 } }]);
    expect(await storedNotes(m.mindId)).toEqual([]);
    const lines = new Set((await coldOf(m.mindId)).text.split("\n"));
    expect(texts.filter((fact) => !lines.has(`- ${fact}`))).toEqual([]);
    expect(lines.size).toBe(texts.length + 2);
    expect((await consolidationsOf(m.mindId)).filter((c) => c.status !== "done")).toEqual([]);
  });
});

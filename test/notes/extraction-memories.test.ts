import { describe, expect, it } from "vitest";
import { answer } from "../../scripts/model-stand-in-answers.mjs";
import { loadTokenCounter } from "../../src/llm/tokens";
import { type ExtractionInput, extractNotes, saveExtraction } from "../../src/notes/extraction";
import { KNOWN_TOKENS } from "../../src/notes/known-memories";
import { call, store } from "../helpers";
import { contextOfMind } from "../support/deps";
import { newNotesMind, storedNotes } from "../support/long-term";
import { scriptedModel, section } from "../support/scripted-model";

// Extraction shows the model the memories the mind already holds on what the person said, with
// their keys, and the model says of each fact whether it is new, the same as one, or replaces
// one. The stand-in model (scripts/model-stand-in-answers.mjs) answers that deterministically:
// a fact saying a memory's content is the same; one holding every word of its key replaces it.

const MAY = "2023-05-21T10:00:00.000Z";
const JUNE = "2023-06-03T09:30:00.000Z";

/** The offline stand-in model, answering what edgemind sends it. */
const standIn = () => scriptedModel([(prompt, _call, system) => answer({ messages: [{ role: "system", content: system }, { role: "user", content: prompt }] })]);

const said = (id: string, content: string, role = "user") => ({ id, role, content, created_at: JUNE });

describe("extraction shown what the mind remembers", () => {
  it("writes a new fact as a note, leaves out the same fact, and makes a replacing fact the memory's newest statement", async () => {
    const m = await newNotesMind();
    const coffee = await store(m.auth, { category: "preference", key: "coffee_order", content: "Orders a flat white", observed_at: MAY });
    await store(m.auth, { category: "preference", key: "editor", content: "Uses Helix as the editor", observed_at: MAY });
    const model = standIn();
    const deps = await contextOfMind(m.mindId, { llm: model.model });
    const extraction: ExtractionInput = {
      sessionId: "ses_known",
      cursor: null,
      messages: [
        said("m1", "Uses Helix as the editor"),
        said("m2", "Noted.", "assistant"),
        said("m3", "My coffee order is an oat latte now"),
        said("m4", "Never deploy on Fridays"),
      ],
    };

    const plan = await extractNotes(deps, extraction);
    if (plan.status !== "extracted") throw new Error(plan.status);
    // The model saw the memories on the subject, with their keys and dates, and the rule to answer by.
    const shown = section(model.prompts[0]!, "memories");
    expect(shown).toEqual(expect.arrayContaining(["- coffee_order: Orders a flat white (21 May 2023)", "- editor: Uses Helix as the editor (21 May 2023)"]));
    expect(model.systems[0]).toContain('"replaces":"<its key>"');
    expect(plan.repeated).toBe(1);
    expect(plan.notes.map((n) => [n.text, n.replaces?.key ?? null])).toEqual([
      ["Never deploy on Fridays", null],
      ["My coffee order is an oat latte now", "coffee_order"],
    ]);

    expect(await saveExtraction(deps, extraction, plan)).toEqual({ written: 2, replaced: 1 });
    // Both facts reach cold memory through their notes; the same fact is not written twice.
    expect((await storedNotes(m.mindId)).map((n) => n.text).sort()).toEqual(["My coffee order is an oat latte now", "Never deploy on Fridays"]);
    // The replacing fact is the memory's newest statement, stated when the message was said.
    const now = (await call("GET", `/memory/${coffee.id}`, m.auth)).json;
    expect(now).toMatchObject({ key: "coffee_order", content: "My coffee order is an oat latte now", observed_at: JUNE, source: "agent", verified: false });
    const then = await call("GET", "/memory/search?q=coffee+order&as_of=2023-05-30", m.auth);
    expect(then.json.results).toMatchObject([{ content: "Orders a flat white", superseded_by: coffee.id, valid_until: JUNE }]);
    const history = await call("GET", "/memory/search?q=coffee+order&include=superseded", m.auth);
    expect(history.json.results).toHaveLength(2);
    expect((await call("GET", "/memory?include=superseded&category=preference", m.auth)).json.total).toBe(3);
  });

  it("shows a mind without memories nothing, and a mind with many only what fits its bound", async () => {
    const empty = await newNotesMind();
    const first = standIn();
    const extraction: ExtractionInput = { sessionId: "ses_bound", cursor: null, messages: [said("m1", "I drink coffee at the harbour cafe every morning")] };
    await extractNotes(await contextOfMind(empty.mindId, { llm: first.model }), extraction);
    expect(first.prompts[0]).not.toContain("<memories>");
    expect(first.systems[0]).not.toContain("<memories>");

    const full = await newNotesMind();
    for (let i = 0; i < 40; i++) {
      await store(full.auth, { key: `cafe_visit_${i}`, content: `Had coffee at the harbour cafe, visit ${i}, with a long story about the morning and the weather there` });
    }
    const second = standIn();
    await extractNotes(await contextOfMind(full.mindId, { llm: second.model }), extraction);
    const lines = section(second.prompts[0]!, "memories");
    const count = await loadTokenCounter();
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThan(40);
    expect(lines.reduce((n, line) => n + count(line) + 1, 0)).toBeLessThanOrEqual(KNOWN_TOKENS);
  });
});

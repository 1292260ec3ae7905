import { describe, expect, it } from "vitest";
import { jobRuns } from "../../src/db/schema";
import { usageSince } from "../../src/llm/ledger";
import { type ExtractionInput, extractNotes, type PlainMessage, saveExtraction } from "../../src/notes/extraction";
import { contextOfMind, testDeps } from "../support/deps";
import { coldOf, consolidate, foldingTurn, newNotesMind, occurrences, storedNotes } from "../support/long-term";
import { scriptedModel, section } from "../support/scripted-model";

const answer = (notes: { text: string; section?: string; signal?: string; confidence?: number; from?: number[] }[]) =>
  JSON.stringify({ notes });

function conversation(count: number, prefix = "m"): PlainMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(i).padStart(4, "0")}`,
    role: i % 2 === 0 ? "user" : "assistant",
    content: i % 2 === 0 ? `Message ${i}: I am moving the billing jobs to the new queue, step ${i}.` : `Noted, step ${i} is done.`,
  }));
}

async function input(messages: PlainMessage[], cursor: string | null = null, mind: Record<string, unknown> = {}) {
  const m = await newNotesMind(mind);
  const extraction: ExtractionInput = { sessionId: "ses_1", cursor, messages };
  return { m, extraction };
}

describe("extraction", () => {
  it("turns messages into self-contained notes, negative signals first, and moves the cursor to the last message read", async () => {
    const { m, extraction } = await input(conversation(4));
    const model = scriptedModel([
      answer([
        { text: "Works on the billing service", section: "context", signal: "fact", confidence: 0.9 },
        { text: "Does not want answers longer than five lines", section: "avoid", signal: "prohibition" },
        { text: "Prefers Go for new services", section: "preferences", signal: "preference" },
        { text: "Was unhappy that the assistant guessed the queue name", section: "avoid", signal: "dissatisfaction" },
      ]),
    ]);
    const deps = await contextOfMind(m.mindId, { llm: model.model });
    const plan = await extractNotes(deps, extraction);
    expect(plan).toMatchObject({ status: "extracted", cursor: "m0003", modelCalls: 1 });
    if (plan.status !== "extracted") throw new Error("unreachable");
    expect(plan.notes.map((n) => n.signal)).toEqual(["prohibition", "dissatisfaction", "fact", "preference"]);

    expect(await saveExtraction(deps, extraction, plan)).toEqual({ written: 4, replaced: 0 });
    const stored = await storedNotes(m.mindId);
    expect(stored).toHaveLength(4);
    expect(stored[0]).toMatchObject({ source: "agent", sessionId: "ses_1", agent: "default", categoryHint: "avoid", confidence: 0.7 });
    expect(stored.find((n) => n.text.startsWith("Works"))!.confidence).toBe(0.9);

    const sent = model.prompts[0]!;
    expect(section(sent, "conversation").join("\n")).toContain("user: Message 0");
    expect(model.systems[0]).toContain("self-contained fact");
    expect(model.systems[0]).toContain("Negative signals come first");
    expect(model.systems[0]).toContain("one-off chatter");
    expect((await usageSince(await contextOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01"))[0]).toMatchObject({ purpose: "extraction", calls: 1 });
  });

  it("keeps the messages each note was drawn from as its context: those the model names, else the closest one", async () => {
    const { m, extraction } = await input(conversation(6));
    const model = scriptedModel([
      answer([
        { text: "Moves the billing jobs at step four", from: [5, 6] },
        { text: "Cares about step 2 of the billing queue move", from: [99] },
      ]),
    ]);
    const deps = await contextOfMind(m.mindId, { llm: model.model });
    const plan = await extractNotes(deps, extraction);
    if (plan.status !== "extracted") throw new Error(plan.status);
    expect(plan.notes[0]!.context).toBe(`user: ${extraction.messages[4]!.content}\nassistant: ${extraction.messages[5]!.content}`);
    expect(plan.notes[1]!.context).toBe(`user: ${extraction.messages[2]!.content}`);
    expect(section(model.prompts[0]!, "conversation").join("\n")).toContain("#3 user: Message 2");
    await saveExtraction(deps, extraction, plan);
    const stored = await storedNotes(m.mindId);
    expect(stored.map((n) => n.context).sort()).toEqual(plan.notes.map((n) => n.context).sort());
    expect(stored.every((n) => n.text.startsWith("Moves") || n.text.startsWith("Cares"))).toBe(true);
  });

  it("running twice over the same messages writes no duplicate, even when the model words things differently", async () => {
    const { m, extraction } = await input(conversation(6));
    const first = scriptedModel([answer([{ text: "Moves billing jobs to the new queue" }])]);
    const second = scriptedModel([answer([{ text: "Is migrating the billing jobs to a new queue" }, { text: "Another fact" }])]);
    const planA = await extractNotes(await contextOfMind(m.mindId, { llm: first.model }), extraction);
    const planB = await extractNotes(await contextOfMind(m.mindId, { llm: second.model }), extraction);
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, planA)).toEqual({ written: 1, replaced: 0 });
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, planB)).toEqual({ written: 0, replaced: 0 });
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, planA)).toEqual({ written: 0, replaced: 0 });
    expect((await storedNotes(m.mindId)).map((n) => n.text)).toEqual(["Moves billing jobs to the new queue"]);
  });

  it("does not add a fact that is already waiting as a note", async () => {
    const { m, extraction } = await input(conversation(2));
    await m.addNote("Uses Postgres 16");
    const model = scriptedModel([answer([{ text: "uses postgres 16." }, { text: "Uses Redis for queues" }])]);
    const plan = await extractNotes(await contextOfMind(m.mindId, { llm: model.model }), extraction);
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, plan)).toEqual({ written: 1, replaced: 0 });
    expect((await storedNotes(m.mindId)).map((n) => n.text)).toEqual(["Uses Postgres 16", "Uses Redis for queues"]);
  });

  it("writes the notes and the statements given alongside (the cursor move) all or nothing", async () => {
    const { m, extraction } = await input(conversation(2));
    const deps = await contextOfMind(m.mindId, { llm: scriptedModel([answer([{ text: "Likes Rust" }])]).model });
    const plan = await extractNotes(deps, extraction);
    const id = `job_${crypto.randomUUID()}`;
    const row = { id, job: "retention", cron: null, startedAt: "2026-01-01T00:00:00.000Z", counts: {} };
    await deps.shard.insert(jobRuns).values(row);
    const failingCursorMove = deps.shard.insert(jobRuns).values(row);
    await expect(saveExtraction(deps, extraction, plan, [failingCursorMove])).rejects.toThrow();
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect(await saveExtraction(deps, extraction, plan)).toEqual({ written: 1, replaced: 0 });
  });

  it("with no model extracts nothing and leaves the cursor where it was", async () => {
    const { m, extraction } = await input(conversation(3), "m-prev");
    const plan = await extractNotes(await contextOfMind(m.mindId), extraction);
    expect(plan).toEqual({ status: "no_model", cursor: "m-prev" });
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, plan)).toEqual({ written: 0, replaced: 0 });
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect(await extractNotes(await contextOfMind(m.mindId), { ...extraction, messages: [] })).toEqual({ status: "nothing", cursor: "m-prev" });
  });

  it("a broken answer is retried once; two broken answers or a model error leave the cursor and write nothing", async () => {
    const { m, extraction } = await input(conversation(2));
    const recovered = await extractNotes(await contextOfMind(m.mindId, { llm: scriptedModel(["{notes: [", answer([{ text: "Fixed on retry" }])]).model }), extraction);
    expect(recovered).toMatchObject({ status: "extracted", modelCalls: 2 });

    const broken = await extractNotes(await contextOfMind(m.mindId, { llm: scriptedModel(["nope", '{"notes": "wrong shape"}']).model }), extraction);
    expect(broken).toMatchObject({ status: "failed", cursor: null });
    const failing = await extractNotes(await contextOfMind(m.mindId, { llm: scriptedModel([new Error("connection reset")]).model }), extraction);
    expect(failing).toMatchObject({ status: "failed", cursor: null, error: expect.stringContaining("connection reset") });
    expect(await saveExtraction(await contextOfMind(m.mindId), extraction, broken)).toEqual({ written: 0, replaced: 0 });
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect((await usageSince(await contextOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01"))[0]).toMatchObject({ calls: 5, failures: 4 });
  });

  it("over budget, leaves the cursor and calls no model", async () => {
    const { m, extraction } = await input(conversation(2), null, { settings: { daily_token_budget: 0 } });
    const model = scriptedModel([answer([])]);
    expect(await extractNotes(await contextOfMind(m.mindId, { llm: model.model }), extraction)).toEqual({ status: "budget", cursor: null });
    expect(model.prompts).toEqual([]);
  });

  it("reads a long history in windows, so one call stays bounded and nothing is skipped", async () => {
    const long = Array.from({ length: 12 }, (_, i) => ({ id: `L${String(i).padStart(2, "0")}`, role: "user", content: `${i} ${"x".repeat(3990)}` }));
    const { m, extraction } = await input(long);
    const model = scriptedModel([answer([])]);
    const first = await extractNotes(await contextOfMind(m.mindId, { llm: model.model }), extraction);
    expect(first).toMatchObject({ status: "extracted", cursor: "L05" });
    const rest = long.slice(6);
    const second = await extractNotes(await contextOfMind(m.mindId, { llm: model.model }), { ...extraction, cursor: "L05", messages: rest });
    expect(second).toMatchObject({ status: "extracted", cursor: "L11" });
    expect(model.prompts[1]).toContain("user: 6 x");
  });
});

describe("a 100-message conversation, end to end", () => {
  it("records the model calls and tokens of extraction and one consolidation", async () => {
    const messages = conversation(100);
    const { m, extraction } = await input(messages);
    const facts = Array.from({ length: 12 }, (_, i) => ({ text: `Billing migration fact ${i}`, section: "context" }));
    const model = scriptedModel([answer(facts), foldingTurn], "counted");
    const deps = await contextOfMind(m.mindId, { llm: model.model });

    const plan = await extractNotes(deps, extraction);
    expect(plan).toMatchObject({ status: "extracted", cursor: "m0099" });
    expect(await saveExtraction(deps, extraction, plan)).toEqual({ written: 12, replaced: 0 });
    const outcome = await consolidate(deps, { mindId: m.mindId, agent: "default" });
    expect(outcome).toMatchObject({ status: "done", foldedNotes: 12, modelCalls: 1 });
    expect(occurrences((await coldOf(m.mindId)).text, "Billing migration fact 11")).toBe(1);

    const ledger = await usageSince(await contextOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01");
    expect(ledger.map((r) => [r.purpose, r.calls])).toEqual([
      ["consolidation", 1],
      ["extraction", 1],
    ]);
    for (const r of ledger) expect(r.inputTokens).toBeGreaterThan(0);
    console.log(
      "measure: 100 messages → " +
        ledger.map((r) => `${r.purpose}: ${r.calls} call, ${r.inputTokens} in + ${r.outputTokens} out tokens`).join("; "),
    );
  });

  it("records the model calls and tokens of one consolidation of 100 notes", async () => {
    const m = await newNotesMind();
    for (let i = 0; i < 100; i++) await m.addNote(`Fact ${i}: the person keeps project ${i} in its own repository`, "context");
    const model = scriptedModel([foldingTurn], "counted");
    const outcome = await consolidate(testDeps({ llm: model.model }), { mindId: m.mindId, agent: "default" });
    expect(outcome).toMatchObject({ status: "done", foldedNotes: 100, modelCalls: 1 });
    const [row] = await usageSince(await contextOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01");
    expect(row).toMatchObject({ purpose: "consolidation", calls: 1, failures: 0 });
    console.log(`measure: consolidation of 100 notes → ${row!.calls} call, ${row!.inputTokens} in + ${row!.outputTokens} out tokens`);
  });
});

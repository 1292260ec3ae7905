import { beforeAll, describe, expect, it } from "vitest";
import { recordUsage, usageSince } from "../../src/llm/ledger";
import { updateCold } from "../../src/notes/cold-memory";
import { mergeOffline } from "../../src/notes/merge";
import { call } from "../helpers";
import { DAY, depsOfMind, inMind, manualClock, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { runNow } from "../support/jobs";
import { coldOf, consolidate, consolidationsOf, foldingTurn, newNotesMind, occurrences, storedNotes, versionsOf } from "../support/long-term";
import { SCRIPTED_USAGE, scriptedModel } from "../support/scripted-model";

// The hourly job sweeps every mind and it counts what it did: it starts from empty databases.
beforeAll(freshDatabases);

const target = (mindId: string) => ({ mindId, agent: "default" });

describe("consolidation with a model", () => {
  it("folds notes into a sectioned document and deletes exactly the folded notes", async () => {
    const m = await newNotesMind();
    await m.addNote("Prefers answers in short bullet lists", "preferences");
    await m.addNote("Never run migrations on Friday", "avoid");
    await m.addNote("Works at Acme on the billing service", "project");
    const model = scriptedModel([foldingTurn]);

    const outcome = await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "done", version: 1, foldedNotes: 3, attempts: 1, modelCalls: 1 });
    expect((await coldOf(m.mindId)).text).toBe(
      [
        "## Preferences",
        "- Prefers answers in short bullet lists",
        "",
        "## Avoid",
        "- Never run migrations on Friday",
        "",
        "## Work context",
        "- Works at Acme on the billing service",
        "",
      ].join("\n"),
    );
    expect(await storedNotes(m.mindId)).toEqual([]);
    const [version] = await versionsOf(m.mindId);
    expect(version).toMatchObject({ version: 1, author: "consolidation" });
    expect(model.systems[0]).toContain("newer one wins");
    expect(model.systems[0]).toContain("Never mark anything as verified");
    expect(model.systems[0]).toContain("Write the facts in English");
    const [row] = await usageSince(await depsOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01");
    expect(row).toMatchObject({ purpose: "consolidation", calls: 1, failures: 0, ...SCRIPTED_USAGE });
    const [cons] = await consolidationsOf(m.mindId);
    expect(cons).toMatchObject({ status: "done", mode: "model", noteCount: 3, fromVersion: 0, toVersion: 1 });
  });

  it("writes a Russian mind's document with Russian headings, empty sections left out", async () => {
    const m = await newNotesMind({ locale: "ru" });
    await m.addNote("Зовут Ольга", "profile");
    await m.addNote("Терпеть не может длинные письма", "avoid");
    await m.addNote("Пишет на Go и Rust", "techniques");
    const model = scriptedModel([foldingTurn]);
    await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect((await coldOf(m.mindId)).text).toBe(
      "## Профиль\n- Зовут Ольга\n\n## Чего избегать\n- Терпеть не может длинные письма\n\n## Приёмы и инструменты\n- Пишет на Go и Rust\n",
    );
    expect(model.systems[0]).toContain("Write the facts in Russian");
  });

  it("retries a broken-JSON answer once and folds the notes once", async () => {
    const m = await newNotesMind();
    await m.addNote("Likes dark roast coffee", "preferences");
    const model = scriptedModel(['{"preferences": ["Likes dark', foldingTurn]);
    const outcome = await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "done", modelCalls: 2 });
    expect(occurrences((await coldOf(m.mindId)).text, "Likes dark roast coffee")).toBe(1);
    expect(await storedNotes(m.mindId)).toEqual([]);
    expect((await usageSince(await depsOfMind(m.mindId), { mindId: m.mindId }, "2000-01-01"))[0]).toMatchObject({ calls: 2, failures: 1 });
  });

  it("after two malformed answers records a failure, writes nothing and gives the notes back", async () => {
    const m = await newNotesMind();
    const a = await m.addNote("Has two cats", "profile");
    const b = await m.addNote("Allergic to peanuts", "profile");
    const broken = scriptedModel(["I think the memory is fine", '{"profile": "not a list"}']);
    const outcome = await consolidate(testDeps({ llm: broken.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "failed", budget: false });
    expect(await coldOf(m.mindId)).toMatchObject({ text: "", version: 0 });
    const waiting = await storedNotes(m.mindId);
    expect(waiting.map((n) => [n.id, n.consolidationId])).toEqual([
      [a.id, null],
      [b.id, null],
    ]);
    const [failed] = await consolidationsOf(m.mindId);
    expect(failed).toMatchObject({ status: "failed" });
    expect(failed!.error).toMatch(/malformed/);

    await consolidate(testDeps({ llm: scriptedModel([foldingTurn]).model }), target(m.mindId));
    const text = (await coldOf(m.mindId)).text;
    expect(occurrences(text, "Has two cats")).toBe(1);
    expect(occurrences(text, "Allergic to peanuts")).toBe(1);
    expect(await storedNotes(m.mindId)).toEqual([]);
  });

  it("a model error loses no note", async () => {
    const m = await newNotesMind();
    await m.addNote("Lives in Lisbon", "profile");
    const failing = scriptedModel([new Error("503 from the model server")]);
    const outcome = await consolidate(testDeps({ llm: failing.model }), target(m.mindId));
    expect(outcome.status).toBe("failed");
    expect(failing.prompts).toHaveLength(1);
    expect(await storedNotes(m.mindId)).toHaveLength(1);
    expect((await storedNotes(m.mindId))[0]!.consolidationId).toBeNull();
    expect((await consolidationsOf(m.mindId))[0]!.error).toContain("503 from the model server");
    await consolidate(testDeps({ llm: scriptedModel([foldingTurn]).model }), target(m.mindId));
    expect(occurrences((await coldOf(m.mindId)).text, "Lives in Lisbon")).toBe(1);
  });

  it("stops at the daily budget without claiming, and runs when the budget returns", async () => {
    const m = await newNotesMind({ settings: { daily_token_budget: 100 } });
    await m.addNote("Reads Tolstoy", "profile");
    const clock = manualClock("2026-03-10T10:00:00.000Z");
    await recordUsage(await depsOfMind(m.mindId, { clock }), { mindId: m.mindId }, "extraction", { inputTokens: 90, outputTokens: 10 }, false);
    const model = scriptedModel([foldingTurn]);
    expect(await consolidate(testDeps({ llm: model.model, clock }), target(m.mindId))).toEqual({ status: "budget" });
    expect(model.prompts).toHaveLength(0);
    expect(await consolidationsOf(m.mindId)).toEqual([]);
    expect((await storedNotes(m.mindId))[0]!.consolidationId).toBeNull();

    clock.advance(DAY);
    expect((await consolidate(testDeps({ llm: model.model, clock }), target(m.mindId))).status).toBe("done");
    expect(occurrences((await coldOf(m.mindId)).text, "Reads Tolstoy")).toBe(1);
  });

  it("running out of budget between a malformed answer and its retry leaves the notes waiting", async () => {
    const used = SCRIPTED_USAGE.inputTokens + SCRIPTED_USAGE.outputTokens;
    const m = await newNotesMind({ settings: { daily_token_budget: used } });
    await m.addNote("Speaks Portuguese", "profile");
    const model = scriptedModel(["not json", foldingTurn]);
    const outcome = await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "failed", budget: true });
    expect(model.prompts).toHaveLength(1);
    expect((await storedNotes(m.mindId))[0]!.consolidationId).toBeNull();
    expect((await coldOf(m.mindId)).version).toBe(0);
  });

  it("a write between read and write makes it read again and merge on top: no note lost, none folded twice", async () => {
    const m = await newNotesMind();
    await m.addNote("Prefers tabs over spaces", "preferences");
    await m.addNote("Uses Neovim", "techniques");
    const deps = testDeps();
    let late: { id: string } | undefined;
    const model = scriptedModel([
      async (prompt) => {
        // Someone edits cold memory while the model is thinking, and a new note arrives.
        await updateCold(await inMind(deps, { mindId: m.mindId, agent: "default", agentFilter: null, principal: { kind: "human", accountId: m.accountId } }), {
          text: "## Profile\n- Written by hand meanwhile\n",
          version: 0,
        });
        late = await m.addNote("Arrived during consolidation", "profile");
        return foldingTurn(prompt);
      },
      foldingTurn,
    ]);
    const outcome = await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "done", version: 2, attempts: 2, modelCalls: 2, foldedNotes: 2 });
    expect(model.prompts[1]).toContain("Written by hand meanwhile");
    const text = (await coldOf(m.mindId)).text;
    for (const fact of ["Written by hand meanwhile", "Prefers tabs over spaces", "Uses Neovim"]) expect(occurrences(text, fact)).toBe(1);
    expect(occurrences(text, "Arrived during consolidation")).toBe(0);
    expect((await storedNotes(m.mindId)).map((n) => [n.id, n.consolidationId])).toEqual([[late!.id, null]]);
    expect((await versionsOf(m.mindId)).map((v) => v.author)).toEqual([expect.stringMatching(/^user:/), "consolidation"]);
  });

  it("gives up after repeated conflicts, keeps every note, and folds them once on the next run", async () => {
    const m = await newNotesMind();
    await m.addNote("Runs marathons", "profile");
    const deps = testDeps();
    const scope = { mindId: m.mindId, agent: "default", agentFilter: null, principal: { kind: "human" as const, accountId: m.accountId } };
    const model = scriptedModel([
      async (prompt) => {
        const cold = await coldOf(m.mindId);
        await updateCold(await inMind(deps, scope), { text: `${cold.text}- edit ${cold.version + 1}\n`, version: cold.version });
        return foldingTurn(prompt);
      },
    ]);
    const outcome = await consolidate(testDeps({ llm: model.model }), target(m.mindId));
    expect(outcome).toMatchObject({ status: "failed" });
    expect(model.prompts).toHaveLength(3);
    expect((await consolidationsOf(m.mindId))[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/changed/) });
    expect((await storedNotes(m.mindId))[0]!.consolidationId).toBeNull();
    expect(occurrences((await coldOf(m.mindId)).text, "Runs marathons")).toBe(0);

    await consolidate(testDeps({ llm: scriptedModel([foldingTurn]).model }), target(m.mindId));
    expect(occurrences((await coldOf(m.mindId)).text, "Runs marathons")).toBe(1);
    expect(await storedNotes(m.mindId)).toEqual([]);
  });

  it("two consolidations of one namespace at once never fold a note twice", async () => {
    const m = await newNotesMind();
    for (let i = 0; i < 6; i++) await m.addNote(`Fact number ${i}`, "context");
    const deps = () => testDeps({ llm: scriptedModel([foldingTurn]).model });
    const outcomes = await Promise.all([consolidate(deps(), target(m.mindId)), consolidate(deps(), target(m.mindId))]);
    expect(outcomes.filter((o) => o.status === "done").length).toBeGreaterThanOrEqual(1);
    await consolidate(deps(), target(m.mindId));
    const text = (await coldOf(m.mindId)).text;
    for (let i = 0; i < 6; i++) expect(occurrences(text, `Fact number ${i}`)).toBe(1);
    expect(await storedNotes(m.mindId)).toEqual([]);
  });
});

describe("consolidation without a model", () => {
  it("places notes by hint and drops exact and normalised duplicates, deterministically", async () => {
    const current = "Kept as written.\n\n## Profile\n- Name is Sam\n- name is sam!\n\n## Reading list\n- Dune\n";
    const notes = [
      ["Prefers email over calls", "preference"],
      ["NAME IS SAM", "identity"],
      ["Prefers  email over calls.", "preferences"],
      ["dune", null],
      ["Do not call before 9:00", "mistake"],
      ["A note without a hint\nspanning lines", null],
      ["ESB means enterprise service bus", "glossary"],
    ].map(([text, hint], i) => ({
      id: `note_${i}`,
      mind_id: "m",
      agent: "default",
      session_id: null,
      text: text!,
      category_hint: hint ?? null,
      source: "user" as const,
      confidence: 1,
      consolidation_id: null,
      created_at: "2026-01-01T00:00:00.000Z",
    }));
    const input = { locale: "en" as const, current, currentVersion: 3, notes };
    const merged = mergeOffline(input);
    expect(merged).toBe(
      [
        "Kept as written.",
        "",
        "## Profile",
        "- Name is Sam",
        "",
        "## Preferences",
        "- Prefers email over calls",
        "",
        "## Avoid",
        "- Do not call before 9:00",
        "",
        "## Work context",
        "- A note without a hint spanning lines",
        "",
        "## Glossary",
        "- ESB means enterprise service bus",
        "",
        "## Reading list",
        "- Dune",
        "",
      ].join("\n"),
    );
    expect(mergeOffline(input)).toBe(merged);
    expect(mergeOffline({ ...input, current: merged, notes: [] })).toBe(merged);
    // A mind that switches language keeps its facts under the other language's headings.
    expect(mergeOffline({ ...input, locale: "ru", current: "## Avoid\n- Long calls\n\n## Glossary\n* ESB: bus\n", notes: [] })).toBe(
      "## Чего избегать\n- Long calls\n\n## Глоссарий\n- ESB: bus\n",
    );
  });

  it("folds a mind's notes through the same claim and compare-and-swap", async () => {
    const m = await newNotesMind({ locale: "ru" });
    await m.addNote("Любит зелёный чай", "preferences");
    await m.addNote("любит зеленый чай", "preferences");
    const outcome = await consolidate(testDeps(), target(m.mindId));
    expect(outcome).toMatchObject({ status: "done", foldedNotes: 2, modelCalls: 0 });
    expect((await coldOf(m.mindId)).text).toBe("## Предпочтения\n- Любит зелёный чай\n");
    expect((await consolidationsOf(m.mindId))[0]!.mode).toBe("offline");
    expect(await consolidate(testDeps(), target(m.mindId))).toEqual({ status: "nothing" });
  });
});

describe("the hourly job", () => {
  it("consolidates every namespace with waiting notes and takes back stale claims", async () => {
    const m = await newNotesMind();
    await m.addNote("In the default namespace", "profile");
    await m.addNote("In the coder namespace", "techniques", "coder");
    const other = await newNotesMind();
    await other.addNote("Claimed by a client that went away", "profile");
    const claim = await call("POST", "/cold/consolidations", { ...other.auth, body: {} });
    expect(claim.json.notes).toHaveLength(1);

    const clock = manualClock(new Date(Date.now() + 31 * 60 * 1000));
    const counts: Record<string, number | string> = {};
    await runNow("consolidation", testDeps({ clock }), counts);
    expect(counts).toMatchObject({ abandoned: 1, released_notes: 1 });
    expect(counts.failed ?? 0).toBe(0);
    expect(counts.done).toBeGreaterThanOrEqual(3);
    expect((await coldOf(m.mindId)).text).toContain("In the default namespace");
    expect((await coldOf(m.mindId, "coder")).text).toContain("In the coder namespace");
    expect((await coldOf(other.mindId)).text).toContain("Claimed by a client that went away");
    const late = await call("PUT", "/cold", { ...other.auth, body: { text: "x", version: 1, consolidation_id: claim.json.consolidation_id } });
    expect(late.status).toBe(409);
  });
});

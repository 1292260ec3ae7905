import { createScheduledController, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import type { LanguageModel } from "../../src/llm/providers";
import { extractSession } from "../../src/sessions/extract-notes";
import { call } from "../helpers";
import { depsOfMind } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";
import { storedNotes } from "../support/long-term";
import { scriptedModel, section, useObjectModel } from "../support/scripted-model";
import { type Auth, append, newAuth, openSession, runAlarmToEnd } from "./session-helpers";

// The daily collection sweeps every session and it counts what it did: it starts from empty databases.
beforeAll(freshDatabases);

const answer = (...texts: string[]) => JSON.stringify({ notes: texts.map((text) => ({ text, section: "preferences", signal: "preference" })) });
const stubOf = (sessionId: string) => env.SESSIONS.get(env.SESSIONS.idFromName(sessionId));

/** Gives the session's object a scripted model for the rest of its life in this test. */
async function useModel(sessionId: string, model: LanguageModel) {
  await runInDurableObject(stubOf(sessionId), (instance) => {
    useObjectModel(instance, model);
  });
}

async function dialogue(auth: Auth, sessionId: string) {
  await append(auth, sessionId, { content: "I write all new services in Go." });
  await append(auth, sessionId, { role: "tool", content: "<200 lines of build log>", ephemeral: true, tool: "build" });
  await append(auth, sessionId, { role: "assistant", content: "Noted: Go for new services." });
  return append(auth, sessionId, { content: "And never use ORMs in them." });
}

describe("extraction from a session", () => {
  it("reads the non-ephemeral messages after the cursor and moves the cursor with the notes, once", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    const last = await dialogue(auth, s.id);
    const model = scriptedModel([answer("Writes new services in Go", "Never uses ORMs in new services")]);
    const deps = await depsOfMind(auth.mind, { llm: model.model });
    const target = { mindId: auth.mind, sessionId: s.id };

    const first = await extractSession(deps, target);
    expect(first).toEqual({ status: "extracted", notes: 2, extracted: 3, remaining: 0, cursor: last.message.id });
    const sent = section(model.prompts[0]!, "conversation").join("\n");
    expect(sent).toContain("never use ORMs");
    expect(sent).not.toContain("build log");
    expect((await storedNotes(auth.mind)).map((n) => [n.text, n.sessionId, n.source])).toEqual([
      ["Writes new services in Go", s.id, "agent"],
      ["Never uses ORMs in new services", s.id, "agent"],
    ]);
    expect((await call("GET", `/sessions/${s.id}`, auth)).json.extracted_through_message_id).toBe(last.message.id);

    // Nothing after the cursor: no model call, nothing written.
    expect(await extractSession(deps, target)).toMatchObject({ status: "nothing", notes: 0, extracted: 0 });
    expect(model.prompts).toHaveLength(1);
    expect(await storedNotes(auth.mind)).toHaveLength(2);
  });

  it("with no model, a model failure or another mind's session, the cursor stays and nothing is written", async () => {
    const auth = await newAuth();
    const other = await newAuth();
    const s = await openSession(auth);
    await dialogue(auth, s.id);
    const target = { mindId: auth.mind, sessionId: s.id };

    expect(await extractSession(await depsOfMind(auth.mind), target)).toMatchObject({ status: "no_model", extracted: null, remaining: 3, cursor: 0 });
    const broken = scriptedModel(["not json at all"]);
    expect(await extractSession(await depsOfMind(auth.mind, { llm: broken.model }), target)).toMatchObject({ status: "failed", extracted: null, cursor: 0 });
    expect(broken.prompts).toHaveLength(2);
    expect(await extractSession(await depsOfMind(auth.mind, { llm: broken.model }), { mindId: other.mind, sessionId: s.id })).toMatchObject({
      status: "not_found",
    });
    expect(await storedNotes(auth.mind)).toHaveLength(0);
    expect((await call("GET", `/sessions/${s.id}`, auth)).json.extracted_through_message_id).toBe(0);
  });

  it("the session object extracts on its alarm and restarts its count", async () => {
    const auth = await newAuth({ extract_every: 3 });
    const s = await openSession(auth);
    const model = scriptedModel([answer("Writes new services in Go")]);
    await useModel(s.id, model.model);
    await dialogue(auth, s.id);
    // The alarm is set for now: it may already run on its own, and is awaited either way.
    await runAlarmToEnd(s.id);
    const got = await call("GET", `/sessions/${s.id}`, auth);
    expect(got.json.state).toMatchObject({ messages_since_extraction: 0, extraction_due: false, extraction_scheduled: false });
    expect(got.json.extracted_through_message_id).toBeGreaterThan(0);
    expect(model.prompts).toHaveLength(1);
    expect((await storedNotes(auth.mind)).map((n) => n.text)).toEqual(["Writes new services in Go"]);
  });

  it("POST /sessions/:id/extract runs it now through the object; another mind's session is not found", async () => {
    const auth = await newAuth();
    const other = await newAuth();
    const s = await openSession(auth);
    await dialogue(auth, s.id);

    const offline = await call("POST", `/sessions/${s.id}/extract`, auth);
    expect(offline.status).toBe(200);
    expect(offline.json.extraction).toMatchObject({ status: "no_model", notes: 0, extracted: null, remaining: 3 });
    expect(offline.json.state).toMatchObject({ extraction_due: true, messages_since_extraction: 3 });

    const model = scriptedModel([answer("Never uses ORMs in new services")]);
    await useModel(s.id, model.model);
    const done = await call("POST", `/sessions/${s.id}/extract`, auth);
    expect(done.json.extraction).toMatchObject({ status: "extracted", notes: 1, extracted: 3, remaining: 0 });
    expect(done.json.state).toMatchObject({ extraction_due: false, messages_since_extraction: 0 });

    expect((await call("POST", `/sessions/${s.id}/extract`, other)).status).toBe(404);
    expect((await call("POST", `/sessions/no-such-session/extract`, auth)).status).toBe(404);
    expect((await call("POST", `/sessions/${s.id}/extract`)).status).toBe(401);
  });

  it("the daily collection extracts every session with messages after its cursor", async () => {
    const auth = await newAuth();
    const first = await openSession(auth);
    const second = await openSession(auth);
    await dialogue(auth, first.id);
    await append(auth, second.id, { content: "My staging database is called atlas." });
    const model = scriptedModel([(prompt) => answer(prompt.includes("atlas") ? "The staging database is called atlas" : "Writes new services in Go")]);
    await useModel(first.id, model.model);
    await useModel(second.id, model.model);

    await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() }), env);
    const run = await env.DB.prepare("select counts from job_runs where job = 'collection' order by started_at desc limit 1").first<{ counts: string }>();
    expect(JSON.parse(run!.counts).enqueued).toBeGreaterThanOrEqual(2);
    // The run enqueued one message per session; the Worker's queue() consumer extracts them.
    await vi.waitFor(
      async () => expect((await storedNotes(auth.mind)).map((n) => n.text).sort()).toEqual(["The staging database is called atlas", "Writes new services in Go"]),
      { timeout: 20_000, interval: 100 },
    );
  });
});

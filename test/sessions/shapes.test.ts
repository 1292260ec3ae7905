import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { assembledContextRecord } from "../../src/context/fields";
import {
  appendResultRecord,
  chatSummaryRecord,
  messageRecord,
  sessionExtractionRecord,
  sessionRecord,
  sessionStateRecord,
} from "../../src/sessions/fields";
import { call, newKey, newTenant, unique } from "../helpers";
import { readApiDocument } from "../support/openapi";

/** Parses an answer with a shape that refuses fields it does not declare. */
const exactly = (shape: z.ZodObject, value: unknown) => shape.strict().parse(value);

describe("the session shapes", () => {
  it("are what the session routes answer, field for field", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const opened = await call("POST", "/sessions", { token: key, body: { task_name: unique("task") } });
    expect(opened.status).toBe(201);
    const session = exactly(sessionRecord, opened.json);
    const appended = await call("POST", `/sessions/${session.id}/messages`, { token: key, body: { role: "user", content: "I drink green tea" } });
    exactly(appendResultRecord, appended.json);
    exactly(messageRecord, appended.json.message);
    exactly(sessionStateRecord, appended.json.state);
    const shown = await call("GET", `/sessions/${session.id}`, { token: key });
    exactly(sessionRecord.extend({ state: sessionStateRecord }), shown.json);
    const context = await call("GET", `/sessions/${session.id}/context?q=tea`, { token: key });
    exactly(assembledContextRecord, context.json);
    const extracted = await call("POST", `/sessions/${session.id}/extract`, { token: key });
    exactly(sessionExtractionRecord, extracted.json.extraction);
    const chats = await call("GET", "/chats", { token: key });
    for (const chat of chats.json.chats) exactly(chatSummaryRecord, chat);
  });

  it("are the OpenAPI document's session, message, state, extraction and context schemas", async () => {
    const { components } = await readApiDocument();
    const named = { Session: sessionRecord, Message: messageRecord, SessionState: sessionStateRecord, Extraction: sessionExtractionRecord, Context: assembledContextRecord };
    for (const [name, shape] of Object.entries(named)) {
      expect(Object.keys(components[name]?.properties ?? {}), name).toEqual(Object.keys(shape.shape));
    }
  });
});

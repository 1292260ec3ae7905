import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { call, newKey, newTenant } from "../helpers";
import { connectMcp } from "../support/mcp";
import { scriptedModel, useObjectModel } from "../support/scripted-model";
import { dataOf } from "../support/shards";
import { type Auth, append, openSession, storedState } from "./session-helpers";

interface Tenant {
  human: Auth;
  alpha: Auth;
  beta: Auth;
  unscoped: Auth;
  betaSession: any;
  humanSession: any;
  word: string;
}

const keyAuth = (key: string): Auth => ({ token: key, mind: "" });
const asKey = (auth: Auth) => ({ token: auth.token });

/** Every row of the mind's chats, sessions and messages, and the stored state of the sessions given. */
async function snapshot(mindId: string, sessionIds: string[]) {
  const rows = await Promise.all(
    [
      "select id, agent, external_id, active_session_id from chats where mind_id = ? order by id",
      "select id, agent, chat_id, extracted_through_message_id, last_message_at from sessions where mind_id = ? order by id",
      "select id, session_id, content, ephemeral from messages where mind_id = ? order by id",
      "select id, agent, session_id, text from notes where mind_id = ? order by id",
    ].map(async (q) => (await dataOf(mindId)).prepare(q).bind(mindId).all()),
  );
  const stored = await Promise.all(sessionIds.map((id) => storedState(id)));
  return JSON.stringify([rows.map((r) => r.results), stored]);
}

let t: Tenant;

beforeAll(async () => {
  const tenant = await newTenant();
  const human = { token: tenant.token, mind: tenant.mind.id };
  const alpha = keyAuth((await newKey(tenant.token, tenant.mind.id, "alpha")).key);
  const beta = keyAuth((await newKey(tenant.token, tenant.mind.id, "beta")).key);
  const unscoped = keyAuth((await newKey(tenant.token, tenant.mind.id)).key);
  const word = `okapi${Date.now().toString(36).replace(/\d/g, "")}`;
  const betaSession = await openSession(asKey(beta) as Auth, { task_name: "beta task" });
  await append(asKey(beta) as Auth, betaSession.id, { content: `${word} belongs to beta` });
  await append(asKey(beta) as Auth, betaSession.id, { role: "tool", content: "beta tool output", ephemeral: true, tool: "ls" });
  const humanSession = await openSession(human, { task_name: "human task" });
  await append(human, humanSession.id, { content: `${word} belongs to the human` });
  t = { human, alpha, beta, unscoped, betaSession, humanSession, word };
});

describe("sessions and chats belong to an agent namespace", () => {
  it("a key scoped to another namespace reaches none of them on any route, and changes nothing", async () => {
    const before = await snapshot(t.human.mind, [t.betaSession.id, t.humanSession.id]);
    for (const target of [t.betaSession, t.humanSession]) {
      const id = target.id;
      const attempts: [string, string, unknown?][] = [
        ["GET", `/sessions/${id}`],
        ["GET", `/sessions/${id}/messages?channel=llm`],
        ["GET", `/sessions/${id}/messages?channel=ui`],
        ["POST", `/sessions/${id}/messages`, { role: "user", content: "planted by alpha" }],
        ["POST", `/sessions/${id}/complete`, { confirmed: true }],
        ["POST", `/sessions/${id}/activate`],
        ["POST", `/sessions/${id}/extract`],
        ["GET", `/sessions/${id}/context?q=${t.word}`],
        ["GET", `/sessions/search?q=${t.word}&session_id=${id}`],
        ["DELETE", `/sessions/${id}`],
        ["DELETE", `/chats/${target.chat.id}`],
      ];
      for (const [method, path, body] of attempts) {
        const res = await call(method, path, { token: t.alpha.token, body });
        expect([403, 404], `${method} ${path} → ${res.status} ${res.text}`).toContain(res.status);
        expect(res.text).not.toContain("belongs to");
      }
    }
    const search = await call("GET", `/sessions/search?q=${t.word}`, { token: t.alpha.token });
    expect(search.status).toBe(200);
    expect(search.json.results).toEqual([]);
    const listed = await call("GET", "/sessions", { token: t.alpha.token });
    expect(listed.json.sessions).toEqual([]);
    expect((await call("GET", "/chats", { token: t.alpha.token })).json.chats).toEqual([]);
    for (const path of ["/sessions?agent=beta", "/chats?agent=beta", `/sessions/search?q=${t.word}&agent=beta`]) {
      expect((await call("GET", path, { token: t.alpha.token })).status, path).toBe(403);
    }

    const client = await connectMcp(t.alpha.token);
    const context = (await client.callTool({ name: "session_context", arguments: { sessionId: t.betaSession.id } })) as CallToolResult;
    expect(context.isError).toBe(true);
    const note = (await client.callTool({ name: "save_memory_note", arguments: { text: "x", sessionId: t.betaSession.id } })) as CallToolResult;
    expect(note.isError).toBe(true);
    await client.close();

    expect(await snapshot(t.human.mind, [t.betaSession.id, t.humanSession.id])).toBe(before);
    // Beta's ephemeral output survived alpha's "Done? yes".
    const beta = await call("GET", `/sessions/${t.betaSession.id}/messages?channel=ui`, { token: t.beta.token });
    expect(beta.json.messages.map((m: any) => m.content)).toContain("beta tool output");
  });

  it("each namespace has its own chats of the same name; the human and an unscoped key see them all", async () => {
    const alphaSession = await openSession({ token: t.alpha.token } as Auth, { task_name: "beta task" });
    expect(alphaSession.agent).toBe("alpha");
    expect(alphaSession.chat.external_id).toBe("default");
    expect(alphaSession.chat.id).not.toBe(t.betaSession.chat.id);
    expect(t.betaSession.agent).toBe("beta");
    expect(t.humanSession.agent).toBe("default");
    // Opening beta's task name in alpha's chat did not make beta's session inactive.
    expect((await call("GET", `/sessions/${t.betaSession.id}`, { token: t.beta.token })).json.active).toBe(true);

    const mine = await call("GET", "/sessions?chat=default", { token: t.alpha.token });
    expect(mine.json.sessions.map((s: any) => s.id)).toEqual([alphaSession.id]);
    for (const auth of [t.human, { token: t.unscoped.token }]) {
      const all = await call("GET", "/sessions", auth);
      expect(all.json.sessions.map((s: any) => s.id).sort()).toEqual([alphaSession.id, t.betaSession.id, t.humanSession.id].sort());
      const chats = await call("GET", "/chats", auth);
      expect(chats.json.chats.map((c: any) => `${c.agent}/${c.external_id}`).sort()).toEqual(["alpha/default", "beta/default", "default/default"]);
      const hits = await call("GET", `/sessions/search?q=${t.word}`, auth);
      expect(hits.json.results).toHaveLength(2);
      expect((await call("GET", `/sessions/${t.betaSession.id}/messages?channel=ui`, auth)).status).toBe(200);
    }
    const onlyBeta = await call("GET", "/sessions?agent=beta", t.human);
    expect(onlyBeta.json.sessions.map((s: any) => s.id)).toEqual([t.betaSession.id]);
    // A human writing with ?agent= opens the task in that namespace.
    const forBeta = await call("POST", "/sessions?agent=beta", { ...t.human, body: { task_name: "set up by the human" } });
    expect(forBeta.json.agent).toBe("beta");
    expect(forBeta.json.chat.id).toBe(t.betaSession.chat.id);
  });

  it("refuses control characters in a chat name, so no name can pose as another namespace's chat", async () => {
    const res = await call("POST", "/sessions", { ...t.human, body: { chat: "beta\u001fdefault", task_name: "x" } });
    expect(res.status).toBe(400);
  });

  it("notes extracted from a scoped key's session land in that key's namespace, where the key reads them", async () => {
    const coder = { token: (await newKey(t.human.token, t.human.mind, "coder")).key };
    const session = await openSession(coder as Auth, { task_name: "extraction" });
    await append(coder as Auth, session.id, { content: "I deploy every service to the eu-west region." });
    const model = scriptedModel([JSON.stringify({ notes: [{ text: "Deploys every service to eu-west", section: "context", signal: "fact" }] })]);
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(session.id)), (instance) => {
      useObjectModel(instance, model.model);
    });
    const done = await call("POST", `/sessions/${session.id}/extract`, coder);
    expect(done.json.extraction).toMatchObject({ status: "extracted", notes: 1 });
    const notes = await call("GET", "/notes", coder);
    expect(notes.json.notes.map((n: any) => [n.text, n.agent])).toEqual([["Deploys every service to eu-west", "coder"]]);
    const fromAlpha = await call("GET", "/notes", { token: t.alpha.token });
    expect(fromAlpha.json.notes).toEqual([]);
  });
});

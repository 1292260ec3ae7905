
import { beforeAll, describe, expect, it } from "vitest";
import { call, newKey, newMind } from "../helpers";
import { dataOf } from "../support/shards";
import { type Auth, append, channel, contents, newAuth, openSession, storedState } from "./session-helpers";

interface Victim {
  auth: Auth & { accountId: string };
  session: any;
  word: string;
}

/** Every row and every stored counter of the victim's session, to prove nothing changed. */
async function snapshot(v: Victim) {
  const rows = await (await dataOf(v.auth.mind)).prepare(
    `select (select count(*) from messages where mind_id = ?1) as messages,
            (select count(*) from sessions where mind_id = ?1) as sessions,
            (select count(*) from chats where mind_id = ?1) as chats,
            (select group_concat(active_session_id) from chats where mind_id = ?1) as active`,
  )
    .bind(v.auth.mind)
    .first();
  return { rows, stored: await storedState(v.session.id) };
}

/** Every route on the victim's objects, with a harmless valid body. */
function routesOn(v: Victim): [string, string, unknown?][] {
  const id = v.session.id;
  return [
    ["GET", `/sessions/${id}`],
    ["POST", `/sessions/${id}/activate`],
    ["DELETE", `/sessions/${id}`],
    ["POST", `/sessions/${id}/messages`, { role: "user", content: "intruder" }],
    ["GET", `/sessions/${id}/messages?channel=llm`],
    ["GET", `/sessions/${id}/messages?channel=ui`],
    ["POST", `/sessions/${id}/complete`, { confirmed: true }],
    ["GET", `/sessions/search?q=${v.word}&session_id=${id}`],
    ["DELETE", `/chats/${v.session.chat.id}`],
  ];
}

const collectionRoutes: [string, string, unknown?][] = [
  ["POST", "/sessions", { task_name: "t" }],
  ["GET", "/sessions"],
  ["GET", "/sessions/search?q=x"],
  ["GET", "/chats"],
];

let victim: Victim;

beforeAll(async () => {
  const auth = await newAuth();
  const session = await openSession(auth, { chat: "private" });
  const word = `secretword${Date.now()}`;
  await append(auth, session.id, { content: `${word} lives here` });
  await append(auth, session.id, { role: "tool", content: "tool output", ephemeral: true, tool: "ls" });
  victim = { auth, session, word };
});

describe("who may reach a session", () => {
  it("answers 401 to a missing, malformed, unknown or revoked credential on every route", async () => {
    const key = await newKey(victim.auth.token, victim.auth.mind);
    const revoke = await call("DELETE", `/minds/${victim.auth.mind}/keys/${key.id}`, { token: victim.auth.token });
    expect(revoke.status).toBe(204);
    const before = await snapshot(victim);
    const credentials: { token?: string; headers?: Record<string, string> }[] = [
      {},
      { headers: { Authorization: "Basic abc" } },
      { token: "not-a-jwt" },
      { token: "emk_unknown.secret" },
      { token: key.key },
    ];
    for (const [method, path, body] of [...routesOn(victim), ...collectionRoutes]) {
      for (const credential of credentials) {
        const res = await call(method, path, { ...credential, mind: victim.auth.mind, body });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.json.error.code).toBe("unauthorized");
      }
    }
    expect(await snapshot(victim)).toEqual(before);
  });

  it("answers 404 to another mind's key, another account's token and a key naming a foreign mind, changing nothing", async () => {
    const stranger = await newAuth();
    const sameAccountMind = await newMind(victim.auth.token);
    const siblingKey = await newKey(victim.auth.token, sameAccountMind.id);
    const strangerKey = await newKey(stranger.token, stranger.mind);
    const before = await snapshot(victim);
    const callers = [
      { token: siblingKey.key },
      { token: strangerKey.key },
      { token: strangerKey.key, mind: victim.auth.mind },
      { token: stranger.token, mind: stranger.mind },
      { token: stranger.token, mind: victim.auth.mind },
      { token: victim.auth.token, mind: sameAccountMind.id },
    ];
    for (const caller of callers) {
      for (const [method, path, body] of routesOn(victim)) {
        const res = await call(method, path, { ...caller, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json.error.code).toBe("not_found");
      }
    }
    expect(await snapshot(victim)).toEqual(before);
  });

  it("never lists or finds another mind's chats, sessions or messages", async () => {
    const stranger = await newAuth();
    const mine = await openSession(stranger, { chat: "private", task_name: victim.session.task_name });
    expect(mine.id).not.toBe(victim.session.id);
    const lists = [
      await call("GET", "/sessions", stranger),
      await call("GET", "/sessions?chat=private", stranger),
      await call("GET", `/sessions?chat_id=${victim.session.chat.id}`, stranger),
    ];
    expect(lists.map((r) => r.json.sessions.map((s: any) => s.id))).toEqual([[mine.id], [mine.id], []]);
    const chats = await call("GET", "/chats", stranger);
    expect(chats.json.chats.map((c: any) => c.id)).toEqual([mine.chat.id]);
    const search = await call("GET", `/sessions/search?q=${victim.word}`, stranger);
    expect(search.json.results).toEqual([]);
    const own = await call("GET", `/sessions/search?q=${victim.word}`, victim.auth);
    expect(own.json.results).toHaveLength(1);
  });

  it("lets the mind's own key use its sessions, and wants X-Mind-Id from a human", async () => {
    const key = await newKey(victim.auth.token, victim.auth.mind, "agent-x");
    const opened = await call("POST", "/sessions", { token: key.key, body: { chat: "bot", task_name: "by-key" } });
    expect(opened.status).toBe(201);
    const appended = await call("POST", `/sessions/${opened.json.id}/messages`, { token: key.key, body: { role: "user", content: "hi" } });
    expect(appended.status).toBe(201);
    expect((await call("GET", `/sessions/${opened.json.id}`, { token: victim.auth.token, mind: victim.auth.mind })).json.message_count).toBe(1);
    const noMind = await call("GET", "/sessions", { token: victim.auth.token });
    expect(noMind.status).toBe(400);
    expect(noMind.json.error.message).toContain("X-Mind-Id");
  });
});

describe("bad input", () => {
  it("rejects malformed bodies and queries with a 4xx naming the problem, and loses nothing", async () => {
    const { auth, session } = victim;
    const id = session.id;
    const before = await snapshot(victim);
    const cases: [string, string, { body?: unknown; rawBody?: string; headers?: Record<string, string> }, number, string][] = [
      ["POST", "/sessions", { body: {} }, 400, "task_name"],
      ["POST", "/sessions", { body: { task_name: "   " } }, 400, "task_name"],
      ["POST", "/sessions", { body: { task_name: "x".repeat(201) } }, 400, "task_name"],
      ["POST", "/sessions", { body: { task_name: "t", repo_path: "r".repeat(501) } }, 400, "repo_path"],
      ["POST", "/sessions", { body: { task_name: "t", chat: 42 } }, 400, "chat"],
      ["POST", "/sessions", { body: { task_name: "t", owner: "me" } }, 400, "owner"],
      ["POST", "/sessions", { rawBody: "{not json", headers: { "Content-Type": "application/json" } }, 400, ""],
      ["POST", `/sessions/${id}/messages`, { body: { role: "robot", content: "x" } }, 400, "role"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "" } }, 400, "content"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user" } }, 400, "content"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "x".repeat(32_001) } }, 400, "content"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "x", ephemeral: "yes" } }, 400, "ephemeral"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "x", tool: "" } }, 400, "tool"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "x", transaction_completed: 1 } }, 400, "transaction_completed"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "x", session_id: "other" } }, 400, "session_id"],
      ["POST", `/sessions/${id}/messages`, { body: { role: "user", content: "é".repeat(40_000) } }, 413, ""],
      ["POST", `/sessions/${id}/complete`, { body: {} }, 400, "confirmed"],
      ["POST", `/sessions/${id}/complete`, { body: { confirmed: "yes" } }, 400, "confirmed"],
      ["GET", `/sessions/${id}/messages?channel=model`, {}, 400, "channel"],
      ["GET", `/sessions/${id}/messages?channel=ui&limit=0`, {}, 400, "limit"],
      ["GET", `/sessions/${id}/messages?channel=ui&limit=201`, {}, 400, "limit"],
      ["GET", `/sessions/${id}/messages?channel=ui&after=-1`, {}, 400, "after"],
      ["GET", `/sessions/${id}/messages?channel=ui&after=abc`, {}, 400, "after"],
      ["GET", `/sessions/${id}/messages?channel=llm&after=3`, {}, 400, "channel=ui"],
      ["GET", "/sessions?limit=0", {}, 400, "limit"],
      ["GET", "/sessions/search?q=", {}, 400, "q"],
      ["GET", `/sessions/${"x".repeat(101)}`, {}, 400, "id"],
      ["DELETE", `/chats/${"x".repeat(101)}`, {}, 400, "id"],
    ];
    for (const [method, path, options, status, mention] of cases) {
      const res = await call(method, path, { ...auth, ...options });
      expect(res.status, `${method} ${path} ${JSON.stringify(options.body ?? options.rawBody)?.slice(0, 60)}`).toBe(status);
      expect(res.json.error.message).toContain(mention);
    }
    expect(await snapshot(victim)).toEqual(before);
    expect(contents(await channel(auth, id, "ui"))).toEqual([`${victim.word} lives here`, "tool output"]);
  });

  it("answers 404 for sessions and chats that do not exist, and finds nothing for a query of no words", async () => {
    const { auth } = victim;
    for (const [method, path, body] of [
      ["GET", "/sessions/ses_nope"],
      ["POST", "/sessions/ses_nope/messages", { role: "user", content: "x" }],
      ["POST", "/sessions/ses_nope/complete", { confirmed: false }],
      ["DELETE", "/sessions/ses_nope"],
      ["DELETE", "/chats/chat_nope"],
      ["GET", "/sessions/search?q=x&session_id=ses_nope"],
    ] as [string, string, unknown?][]) {
      expect((await call(method, path, { ...auth, body })).status, `${method} ${path}`).toBe(404);
    }
    const punctuation = await call("GET", `/sessions/search?q=${encodeURIComponent('"*) AND (')}`, auth);
    expect(punctuation.status).toBe(200);
    expect(punctuation.json.results).toEqual([]);
  });
});

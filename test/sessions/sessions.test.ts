import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, unique } from "../helpers";
import {
  append,
  callerOf,
  channel,
  contents,
  countRows,
  indexedRowids,
  newAuth,
  openSession,
  patchSettings,
  storedState,
} from "./session-helpers";

describe("opening sessions", () => {
  it("creates a task in the default chat, returns the same one for the same triple, and makes it active", async () => {
    const auth = await newAuth();
    const task = unique("fix-login");
    const first = await call("POST", "/sessions", { ...auth, body: { task_name: task, repo_path: "org/app" } });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ task_name: task, repo_path: "org/app", active: true, message_count: 0 });
    expect(first.json.chat).toMatchObject({ kind: "api", external_id: "default" });
    expect(first.json.conversation_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const again = await call("POST", "/sessions", { ...auth, body: { task_name: task, repo_path: "org/app" } });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    expect(again.json.conversation_id).toBe(first.json.conversation_id);

    const otherRepo = await call("POST", "/sessions", { ...auth, body: { task_name: task, repo_path: "org/api" } });
    const noRepo = await call("POST", "/sessions", { ...auth, body: { task_name: task } });
    const noRepoAgain = await call("POST", "/sessions", { ...auth, body: { task_name: task, repo_path: null } });
    expect(otherRepo.status).toBe(201);
    expect(noRepo.status).toBe(201);
    expect(noRepo.json.repo_path).toBeNull();
    expect(noRepoAgain.status).toBe(200);
    expect(noRepoAgain.json.id).toBe(noRepo.json.id);
    expect(new Set([first.json.id, otherRepo.json.id, noRepo.json.id]).size).toBe(3);
  });

  it("keeps one active session per chat and switches it with activate", async () => {
    const auth = await newAuth();
    const a = await openSession(auth, { chat: "desk" });
    const b = await openSession(auth, { chat: "desk" });
    const elsewhere = await openSession(auth, { chat: "other-desk" });
    const actives = async () => {
      const res = await call("GET", "/sessions?chat=desk", auth);
      return Object.fromEntries(res.json.sessions.map((s: any) => [s.id, s.active]));
    };
    expect(await actives()).toEqual({ [a.id]: false, [b.id]: true });

    const activated = await call("POST", `/sessions/${a.id}/activate`, auth);
    expect(activated.status).toBe(200);
    expect(activated.json.active).toBe(true);
    expect(await actives()).toEqual({ [a.id]: true, [b.id]: false });
    expect((await call("GET", `/sessions/${elsewhere.id}`, auth)).json.active).toBe(true);

    const reopened = await call("POST", "/sessions", { ...auth, body: { chat: "desk", task_name: b.task_name } });
    expect(reopened.status).toBe(200);
    expect(await actives()).toEqual({ [a.id]: false, [b.id]: true });
  });

  it("lists sessions per chat with message counts, and chats with session counts", async () => {
    const auth = await newAuth();
    const a = await openSession(auth, { chat: "ops" });
    const b = await openSession(auth, { chat: "ops" });
    const c = await openSession(auth, { chat: "dev" });
    for (let i = 0; i < 3; i++) await append(auth, a.id, { content: `a${i}` });
    await append(auth, b.id, { content: "b0", ephemeral: true, tool: "grep" });

    const ops = await call("GET", "/sessions?chat=ops", auth);
    expect(ops.status).toBe(200);
    const counts = Object.fromEntries(ops.json.sessions.map((s: any) => [s.id, s.message_count]));
    expect(counts).toEqual({ [a.id]: 3, [b.id]: 1 });

    const byId = await call("GET", `/sessions?chat_id=${c.chat.id}`, auth);
    expect(byId.json.sessions.map((s: any) => s.id)).toEqual([c.id]);
    const all = await call("GET", "/sessions", auth);
    expect(all.json.sessions.map((s: any) => s.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect((await call("GET", "/sessions?chat=nobody", auth)).json.sessions).toEqual([]);

    const chats = await call("GET", "/chats", auth);
    expect(chats.json.chats.map((ch: any) => [ch.external_id, ch.session_count])).toEqual([
      ["ops", 2],
      ["dev", 1],
    ]);
  });

  it("lets two minds use the same chat name without meeting", async () => {
    const one = await newAuth();
    const two = await newAuth();
    const s1 = await openSession(one, { chat: "shared-name", task_name: "same-task" });
    const s2 = await openSession(two, { chat: "shared-name", task_name: "same-task" });
    expect(s1.chat.id).not.toBe(s2.chat.id);
    expect(s1.id).not.toBe(s2.id);
  });
});

describe("the API document", () => {
  it("describes every session and chat route", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const paths = res.json.paths;
    expect(Object.keys(paths).filter((p: string) => p.startsWith("/sessions") || p.startsWith("/chats")).sort()).toEqual([
      "/chats",
      "/chats/{id}",
      "/sessions",
      "/sessions/search",
      "/sessions/{id}",
      "/sessions/{id}/activate",
      "/sessions/{id}/complete",
      "/sessions/{id}/context",
      "/sessions/{id}/extract",
      "/sessions/{id}/messages",
    ]);
    const role = paths["/sessions/{id}/messages"].post.requestBody.content["application/json"].schema.properties.role;
    expect(role.enum).toContain("model");
  });
});

describe("history channels", () => {
  it("isolates interleaved writes: two sessions of one chat and two chats of two minds", async () => {
    const one = await newAuth();
    const two = await newAuth();
    const s1a = await openSession(one, { chat: "main" });
    const s1b = await openSession(one, { chat: "main" });
    const s2a = await openSession(two, { chat: "main" });
    const s2b = await openSession(two, { chat: "side" });
    const targets = [
      { auth: one, id: s1a.id, tag: "1a" },
      { auth: one, id: s1b.id, tag: "1b" },
      { auth: two, id: s2a.id, tag: "2a" },
      { auth: two, id: s2b.id, tag: "2b" },
    ];
    for (let i = 0; i < 5; i++) {
      await Promise.all(targets.map((t, k) => append(t.auth, t.id, { content: `${t.tag}-${i}`, ephemeral: k % 2 === 1 && i === 2, tool: "sh" })));
    }
    for (const t of targets) {
      const ui = contents(await channel(t.auth, t.id, "ui"));
      expect(ui).toEqual([0, 1, 2, 3, 4].map((i) => `${t.tag}-${i}`));
      const llm = contents(await channel(t.auth, t.id, "llm"));
      expect(llm.every((c: string) => c.startsWith(`${t.tag}-`))).toBe(true);
    }
  });

  it("gives the model the last llm_window non-ephemeral messages and the person everything", async () => {
    const auth = await newAuth({ llm_window: 4 });
    const s = await openSession(auth);
    const sent = [
      { role: "system", content: "be brief" },
      { role: "user", content: "u1" },
      { role: "model", content: "a1" },
      { role: "tool", content: "ls output", ephemeral: true, tool: "ls" },
      { role: "user", content: "u2", tool: "ls" },
      { role: "assistant", content: "a2", tool: "ls" },
      { role: "tool", content: "cat output", ephemeral: true, tool: "ls" },
      { role: "user", content: "u3", tool: "ls" },
    ];
    for (const m of sent) await append(auth, s.id, m);

    const llm = await channel(auth, s.id, "llm");
    expect(llm.channel).toBe("llm");
    expect(contents(llm)).toEqual(["a1", "u2", "a2", "u3"]);
    expect(llm.messages.map((m: any) => m.role)).toEqual(["assistant", "user", "assistant", "user"]);
    expect(llm.messages.every((m: any) => m.ephemeral === false)).toBe(true);

    const ui = await channel(auth, s.id, "ui");
    expect(contents(ui)).toEqual(sent.map((m) => m.content));
    expect(ui.messages.map((m: any) => m.ephemeral)).toEqual([false, false, false, true, false, false, true, false]);
    expect(ui.total).toBe(8);
    const ids = ui.messages.map((m: any) => m.id);
    expect([...ids].sort((x: number, y: number) => x - y)).toEqual(ids);

    // A new window size applies to the next read.
    await patchSettings(auth, { llm_window: 2 });
    expect(contents(await channel(auth, s.id, "llm"))).toEqual(["a2", "u3"]);
  });

  it("pages the UI channel with an id cursor", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    // All about one tool, so the ephemeral message outlives the TTL.
    for (let i = 0; i < 7; i++) await append(auth, s.id, { content: `m${i}`, ephemeral: i === 3, tool: "t" });
    const seen: string[] = [];
    let after = 0;
    for (let pages = 0; pages < 10; pages++) {
      const page = await channel(auth, s.id, "ui", `&limit=3&after=${after}`);
      expect(page.total).toBe(7);
      seen.push(...contents(page));
      if (page.next_after === null) break;
      after = page.next_after;
    }
    expect(seen).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
  });

  it("rotates at history_cap: the 201st message drops the oldest, and a lower cap applies at once", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    // The first 200 go straight to the session object, the writer behind the route.
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(s.id));
    const caller = await callerOf(auth.mind);
    for (let i = 1; i <= 200; i++) {
      const r = await stub.append({ mindId: auth.mind, sessionId: s.id }, { role: "user", content: `n${i}` }, caller);
      expect(r).toMatchObject({ ok: true, trimmed: 0, sequence: i });
    }
    const r201 = await append(auth, s.id, { content: "n201" });
    expect(r201.trimmed).toBe(1);
    const page = await channel(auth, s.id, "ui", "&limit=200");
    expect(page.total).toBe(200);
    expect(page.messages[0].content).toBe("n2");
    expect(page.next_after).toBeNull();
    expect(page.messages.at(-1).content).toBe("n201");

    await patchSettings(auth, { history_cap: 20 });
    const next = await append(auth, s.id, { content: "n202" });
    expect(next.trimmed).toBe(181);
    const small = await channel(auth, s.id, "ui");
    expect(contents(small)).toEqual(Array.from({ length: 20 }, (_, i) => `n${183 + i}`));
    expect(await countRows("messages", "session_id", s.id)).toBe(20);
    // 202 appends one after another through the session's object, each a few D1 statements.
  }, 60_000);

  it("finds a message by the words of its neighbours, below the messages that say them", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    const question = await append(auth, s.id, { content: "Where should we go in October?" });
    await append(auth, s.id, { content: "lighthouse tours listed", ephemeral: true, tool: "search" });
    const answer = await append(auth, s.id, { role: "assistant", content: "The Baltic coast: quiet beaches and lighthouses" });
    const later = await append(auth, s.id, { content: "Sounds good, book it" });
    const unrelated = await append(auth, s.id, { content: "Also remind me about the dentist" });

    const res = await call("GET", `/sessions/search?q=lighthouse&session_id=${s.id}`, auth);
    const ids = res.json.results.map((r: any) => r.id);
    expect(ids[0]).toBe(answer.message.id);
    expect(ids.slice(1).sort()).toEqual([question.message.id, later.message.id].sort());
    expect(ids).not.toContain(unrelated.message.id);
    const check = await env.DB.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run();
    expect(check.success).toBe(true);
  });

  it("stores model as assistant and searches non-ephemeral messages with stemming", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    const spoken = await append(auth, s.id, { role: "model", content: "Пользователь любит зелёный чай" });
    expect(spoken.message.role).toBe("assistant");
    await append(auth, s.id, { role: "tool", content: "чай найден в логах", ephemeral: true, tool: "grep" });

    const res = await call("GET", `/sessions/search?q=${encodeURIComponent("любить чаи")}`, auth);
    expect(res.status).toBe(200);
    expect(res.json.results.map((r: any) => r.id)).toEqual([spoken.message.id]);
    const scoped = await call("GET", `/sessions/search?q=tea&session_id=${s.id}`, auth);
    expect(scoped.json.results).toEqual([]);
  });
});

describe("erasing", () => {
  it("deleting a session leaves no message, no state and no search hit", async () => {
    const auth = await newAuth();
    const keep = await openSession(auth, { chat: "c" });
    const doomed = await openSession(auth, { chat: "c" });
    const word = `quokka${Date.now()}`;
    await append(auth, keep.id, { content: `${word} stays` });
    await append(auth, doomed.id, { content: `${word} goes` });
    await append(auth, doomed.id, { content: "tool out", ephemeral: true, tool: "ls" });
    expect((await storedState(doomed.id)).kv.counters).toBeDefined();
    expect(await indexedRowids(auth.mind, word)).toHaveLength(2);

    const res = await call("DELETE", `/sessions/${doomed.id}`, auth);
    expect(res.status).toBe(200);
    expect(res.json.deleted).toEqual({ sessions: 1, messages: 2 });
    expect(await countRows("messages", "session_id", doomed.id)).toBe(0);
    expect(await countRows("sessions", "id", doomed.id)).toBe(0);
    expect(await storedState(doomed.id)).toEqual({ kv: {}, alarm: null });
    expect(await indexedRowids(auth.mind, word)).toHaveLength(1);
    const search = await call("GET", `/sessions/search?q=${word}`, auth);
    expect(search.json.results.map((r: any) => r.session_id)).toEqual([keep.id]);
    expect((await call("GET", `/sessions/${doomed.id}`, auth)).status).toBe(404);
    expect((await call("POST", `/sessions/${doomed.id}/messages`, { ...auth, body: { role: "user", content: "late" } })).status).toBe(404);
    expect((await storedState(doomed.id)).kv).toEqual({});
    expect(await countRows("messages", "session_id", keep.id)).toBe(1);
  });

  it("deleting a chat erases its sessions, messages, search entries and state, and counts them", async () => {
    const auth = await newAuth();
    const a = await openSession(auth, { chat: "gone" });
    const b = await openSession(auth, { chat: "gone" });
    const other = await openSession(auth, { chat: "kept" });
    const word = `wombat${Date.now()}`;
    await append(auth, a.id, { content: `${word} a` });
    await append(auth, a.id, { content: "more" });
    await append(auth, b.id, { content: `${word} b` });
    await append(auth, other.id, { content: `${word} other` });

    const res = await call("DELETE", `/chats/${a.chat.id}`, auth);
    expect(res.status).toBe(200);
    expect(res.json.deleted).toEqual({ chats: 1, sessions: 2, messages: 3 });
    for (const s of [a, b]) {
      expect(await countRows("messages", "session_id", s.id)).toBe(0);
      expect((await storedState(s.id)).kv).toEqual({});
    }
    expect(await countRows("sessions", "chat_id", a.chat.id)).toBe(0);
    expect(await countRows("chats", "id", a.chat.id)).toBe(0);
    expect(await indexedRowids(auth.mind, word)).toHaveLength(1);
    expect((await call("GET", `/sessions/${other.id}`, auth)).json.message_count).toBe(1);
    expect((await call("DELETE", `/chats/${a.chat.id}`, auth)).status).toBe(404);
  });

  it("erasing a mind counts and removes its chats, sessions, messages and their state", async () => {
    const auth = await newAuth();
    const s1 = await openSession(auth, { chat: "x" });
    const s2 = await openSession(auth, { chat: "y" });
    const word = `numbat${Date.now()}`;
    await append(auth, s1.id, { content: `${word} one` });
    await append(auth, s2.id, { content: "two" });
    await append(auth, s2.id, { content: "three", ephemeral: true, tool: "t" });
    expect(await indexedRowids(auth.mind, word)).toHaveLength(1);

    const res = await call("DELETE", `/minds/${auth.mind}`, { token: auth.token });
    expect(res.status).toBe(200);
    expect(res.json.deleted).toMatchObject({ minds: 1, chats: 2, sessions: 2, messages: 3 });
    expect(await countRows("messages", "mind_id", auth.mind)).toBe(0);
    expect(await countRows("sessions", "mind_id", auth.mind)).toBe(0);
    expect(await countRows("chats", "mind_id", auth.mind)).toBe(0);
    expect(await indexedRowids(auth.mind, word)).toEqual([]);
    for (const s of [s1, s2]) expect((await storedState(s.id)).kv).toEqual({});
  });
});

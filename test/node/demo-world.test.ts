import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { type Api, DEMO_ACCOUNT, DEMO_TOOL, demoKey, demoMind, postToolOutput } from "../../scripts/demo-world.mjs";
import { LOCAL_USER_ID, startTelegramStandIn } from "../../scripts/telegram-stand-in.mjs";

interface Call {
  method: string;
  route: string;
  token: string;
  body?: unknown;
  mind?: string;
}

/** A REST API answering each route from `routes`, recording every call. */
function fakeApi(routes: Record<string, (call: Call) => unknown>): { api: Api; calls: Call[] } {
  const calls: Call[] = [];
  const api: Api = async (method, route, token, options = {}) => {
    const call = { method, route, token, ...options };
    calls.push(call);
    const answer = routes[`${method} ${route}`];
    if (!answer) throw new Error(`${method} ${route} answered 404`);
    return answer(call);
  };
  return { api, calls };
}

const telegramChat = { id: "chat_bot", kind: "telegram", external_id: String(LOCAL_USER_ID), active_session_id: "ses_1" };

test("the demo's mind is the one holding the local Telegram user's bot chat, in the account the bot made", async () => {
  const { api, calls } = fakeApi({
    "POST /auth/token": () => ({ token: "jwt" }),
    "GET /minds": () => ({ minds: [{ id: "mind_other", name: "other", created_at: "2026-12-02T00:00:00Z" }, { id: "mind_bot", name: "Telegram: Local", created_at: "2026-12-01T00:00:00Z" }] }),
    "GET /chats": ({ mind }) => ({ chats: mind === "mind_bot" ? [{ ...telegramChat, external_id: "7" }, telegramChat] : [] }),
  });
  const world = await demoMind(api, "admin");
  assert.equal(world.mind.id, "mind_bot");
  assert.equal(world.chat.id, "chat_bot");
  assert.deepEqual(calls[0], { method: "POST", route: "/auth/token", token: "admin", body: { account: `telegram:${LOCAL_USER_ID}` } });
  assert.equal(DEMO_ACCOUNT, `telegram:${LOCAL_USER_ID}`);
});

test("of minds holding the bot's chat as a Telegram chat, the bot's is the oldest: a copy is made after it", async () => {
  const { api } = fakeApi({
    "POST /auth/token": () => ({ token: "jwt" }),
    // Newest first, as GET /minds lists them: the copy an import made, then the bot's own.
    "GET /minds": () => ({ minds: [{ id: "mind_copy", name: "copy", created_at: "2026-12-03T00:00:00Z" }, { id: "mind_bot", name: "Telegram: Local", created_at: "2026-12-01T00:00:00Z" }] }),
    "GET /chats": () => ({ chats: [telegramChat] }),
  });
  assert.equal((await demoMind(api, "admin")).mind.id, "mind_bot");
});

test("an account without the bot chat is refused, not taken for the demo's", async () => {
  const { api } = fakeApi({
    "POST /auth/token": () => ({ token: "jwt" }),
    "GET /minds": () => ({ minds: [{ id: "mind_api", name: "demo", created_at: "2026-12-01T00:00:00Z" }] }),
    "GET /chats": () => ({ chats: [] }),
  });
  await assert.rejects(demoMind(api, "admin"), /holds no mind with the bot's chat/);
});

test("the demo's key is kept between starts while the mind holds it unrevoked, and replaced once revoked", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "demo-key-")), "demo.key");
  let made = 0;
  let revoked: string | null = null;
  const { api } = fakeApi({
    "POST /minds/mind_1/keys": () => ({ id: `key_${++made}`, key: `emk_secret_${made}` }),
    "GET /minds/mind_1/keys": () => ({ keys: [{ id: "key_1", revoked_at: revoked }] }),
    "POST /minds/mind_2/keys": () => ({ id: "key_other", key: "emk_other" }),
  });
  assert.deepEqual(await demoKey(api, "jwt", "mind_1", file), { key: "emk_secret_1", kept: false });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(await demoKey(api, "jwt", "mind_1", file), { key: "emk_secret_1", kept: true });
  revoked = "2026-01-01T00:00:00Z";
  assert.deepEqual(await demoKey(api, "jwt", "mind_1", file), { key: "emk_secret_2", kept: false });
  assert.deepEqual(await demoKey(api, "jwt", "mind_2", file), { key: "emk_other", kept: false });
  assert.equal(JSON.parse(readFileSync(file, "utf8")).mind_id, "mind_2");
});

test("!tool output goes with the key to the bot chat's active task as ephemeral tool output", async () => {
  const { api, calls } = fakeApi({
    "GET /chats": () => ({ chats: [{ ...telegramChat, id: "chat_api", active_session_id: "ses_api" }, telegramChat] }),
    "POST /sessions/ses_1/messages": () => ({}),
  });
  assert.equal(await postToolOutput(api, "emk_key", "chat_bot", "42 files uploaded"), "ses_1");
  assert.deepEqual(calls.at(-1), {
    method: "POST",
    route: "/sessions/ses_1/messages",
    token: "emk_key",
    body: { role: "tool", content: "42 files uploaded", ephemeral: true, tool: DEMO_TOOL },
  });
});

test("!tool output with no task in the bot chat yet posts nothing", async () => {
  const { api, calls } = fakeApi({ "GET /chats": () => ({ chats: [{ ...telegramChat, active_session_id: null }] }) });
  assert.equal(await postToolOutput(api, "emk_key", "chat_bot", "output"), null);
  assert.equal(calls.length, 1);
});

test("the Telegram stand-in hands the bot's next message to whoever waits for it, or null past the wait", async () => {
  const port = await freePort();
  const { server, nextReply } = await startTelegramStandIn({ port, worker: "http://127.0.0.1:1", secret: "s".repeat(32), print: () => {} });
  try {
    const reply = nextReply(5000);
    await fetch(`http://127.0.0.1:${port}/bot1:x/sendMessage`, { method: "POST", body: JSON.stringify({ chat_id: LOCAL_USER_ID, text: "Hi, Local!" }) });
    assert.equal(await reply, "Hi, Local!");
    assert.equal(await nextReply(50), null);
  } finally {
    server.close();
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

// The demo's one world: the local Telegram user's account (made by the bot at /start) and the
// mind of its bot chat, reached through a running Worker's REST API as any account is: the
// admin token makes a token for the account by its name, and that token finds the mind, makes
// its key and its login links.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { LOCAL_USER_ID } from "./telegram-stand-in.mjs";

/** The name the bot gives the local Telegram user's account (src/telegram/identity.ts). */
export const DEMO_ACCOUNT = `telegram:${LOCAL_USER_ID}`;

/** The tool the demo's `!tool` lines are reported as. */
export const DEMO_TOOL = "demo";

/** The agent's task the demo opens with its key. */
export const DEMO_TASK = "first look";

/**
 * A caller of the REST API at `base`: `api(method, route, token, { body, mind })` answers the
 * parsed JSON, and a refusal throws with its status and body. `mind` names the mind a person's
 * token works in (X-Mind-Id).
 */
export function restClient(base) {
  return async (method, route, token, { body, mind } = {}) => {
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(mind && { "X-Mind-Id": mind }) };
    const response = await fetch(`${base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = response.status === 204 ? null : await response.json();
    if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
}

/**
 * The demo account's token, and the mind the bot writes to with its chat. Call it after the bot
 * has answered the local user: before, the token would make an account of that name that the
 * bot does not use. The bot's chat is in the mind the bot made for it at first contact; an
 * import makes it an API chat in the copy, and a copy that holds it as a Telegram chat (imported
 * before imports did so) is newer than the bot's mind: the oldest mind holding it is the bot's.
 */
export async function demoMind(api, adminToken) {
  const { token } = await api("POST", "/auth/token", adminToken, { body: { account: DEMO_ACCOUNT } });
  const { minds } = await api("GET", "/minds", token);
  const oldestFirst = [...minds].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  for (const mind of oldestFirst) {
    const { chats } = await api("GET", "/chats", token, { mind: mind.id });
    const chat = chats.find((c) => c.kind === "telegram" && c.external_id === String(LOCAL_USER_ID));
    if (chat) return { token, mind, chat };
  }
  // The bot names the account so at the user's first /start, unless an account already held the name.
  throw new Error(`the account ${DEMO_ACCOUNT} holds no mind with the bot's chat with the local user`);
}

/** The agent's task the demo opens with the key (the same one at every start): the README's first look assembles its context. */
export async function demoSession(api, key) {
  const { id } = await api("POST", "/sessions", key, { body: { task_name: DEMO_TASK } });
  return id;
}

/**
 * A key to the mind: the one kept in `file` while the mind holds it unrevoked, so every start
 * prints the same key; otherwise a new one, kept there (mode 0600) for the next start.
 */
export async function demoKey(api, token, mindId, file) {
  const kept = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  if (kept?.mind_id === mindId) {
    const { keys } = await api("GET", `/minds/${mindId}/keys`, token);
    if (keys.some((k) => k.id === kept.key_id && k.revoked_at === null)) return { key: kept.key, kept: true };
  }
  const made = await api("POST", `/minds/${mindId}/keys`, token, { body: { name: "demo" } });
  writeFileSync(file, `${JSON.stringify({ mind_id: mindId, key_id: made.id, key: made.key })}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { key: made.key, kept: false };
}

/** A one-time web UI login link into the mind, and when it stops working. */
export async function demoLoginLink(api, token, mindId) {
  const { url, expires_at } = await api("POST", `/minds/${mindId}/login-link`, token);
  return { url, expiresAt: expires_at };
}

/**
 * Posts `text` as an agent's ephemeral tool output to the active task of the bot's chat, with
 * the mind key, as an agent would. Answers the session's id, or null when the chat has no task
 * yet (the bot opens its default task at the first message that needs one).
 */
export async function postToolOutput(api, key, chatId, text) {
  const { chats } = await api("GET", "/chats", key);
  const sessionId = chats.find((c) => c.id === chatId)?.active_session_id ?? null;
  if (sessionId === null) return null;
  await api("POST", `/sessions/${sessionId}/messages`, key, { body: { role: "tool", content: text, ephemeral: true, tool: DEMO_TOOL } });
  return sessionId;
}

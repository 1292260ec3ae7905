import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { toMatchExpression } from "../../src/memory/normalize";
import type { AppendCaller } from "../../src/sessions/session-object";
import { getMindById } from "../../src/tenancy/minds";
import { call, newTenant, unique } from "../helpers";
import { testDeps } from "../support/deps";
import { countEverywhere, rowsEverywhere } from "../support/shards";

export interface Auth {
  token: string;
  mind: string;
}

/** A human with one mind, as the auth options of `call`. */
export async function newAuth(settings?: Record<string, number>): Promise<Auth & { accountId: string }> {
  const t = await newTenant();
  if (settings) await patchSettings({ token: t.token, mind: t.mind.id }, settings);
  return { token: t.token, mind: t.mind.id, accountId: t.accountId };
}

export async function patchSettings(auth: Auth, settings: Record<string, number>): Promise<void> {
  const res = await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { settings } });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${res.text}`);
}

/**
 * Runs the session object's alarm if it is still set, or else waits for the one that fired on
 * its own: every method of the object goes through its queue, so once an empty call queued
 * behind the alarm has run, the alarm has finished.
 */
export async function runAlarmToEnd(sessionId: string): Promise<void> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(sessionId));
  await runDurableObjectAlarm(stub);
  await runInDurableObject(stub, (instance) => (instance as unknown as { serially(work: () => Promise<void>): Promise<void> }).serially(async () => {}));
}

/** Opens (or finds) a task and returns the session, failing loudly otherwise. */
export async function openSession(auth: Auth, body: Record<string, unknown> = {}): Promise<any> {
  const res = await call("POST", "/sessions", { ...auth, body: { task_name: unique("task"), ...body } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`open: ${res.status} ${res.text}`);
  return res.json;
}

/** Appends one message and returns the append result. */
export async function append(auth: Auth, sessionId: string, body: Record<string, unknown>): Promise<any> {
  const res = await call("POST", `/sessions/${sessionId}/messages`, { ...auth, body: { role: "user", ...body } });
  if (res.status !== 201) throw new Error(`append: ${res.status} ${res.text}`);
  return res.json;
}

/** The contents of a channel, oldest first. */
export async function channel(auth: Auth, sessionId: string, name: "llm" | "ui", query = ""): Promise<any> {
  const res = await call("GET", `/sessions/${sessionId}/messages?channel=${name}${query}`, auth);
  if (res.status !== 200) throw new Error(`channel: ${res.status} ${res.text}`);
  return res.json;
}

export const contents = (page: { messages: { content: string }[] }) => page.messages.map((m) => m.content);

/** Counts rows straight from D1, past every route. */
export async function countRows(table: "messages" | "sessions" | "chats", column: string, value: string): Promise<number> {
  return countEverywhere(`select count(*) as n from ${table} where ${column} = ?`, value);
}

/** Rowids the messages search index still holds for a word in a mind. */
export async function indexedRowids(mindId: string, word: string): Promise<number[]> {
  const results = await rowsEverywhere<{ rowid: number }>(`select rowid from messages_fts where messages_fts match ?`, toMatchExpression(mindId, word));
  return results.map((r) => r.rowid);
}

/** Everything a session object has stored (and its alarm), read inside the object. */
export async function storedState(sessionId: string): Promise<{ kv: Record<string, unknown>; alarm: number | null }> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(sessionId));
  return runInDurableObject(stub, async (_instance, state) => ({
    kv: Object.fromEntries(state.storage.kv.list()),
    alarm: await state.storage.getAlarm(),
  }));
}

/** What a front's mind context hands the session object on an append: the namespace filter and the mind's settings. */
export async function callerOf(mindId: string, agentFilter: string | null = null): Promise<AppendCaller> {
  return { agentFilter, settings: (await getMindById(testDeps(), mindId)).settings };
}

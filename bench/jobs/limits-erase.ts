import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { takePassedLimits } from "../../src/limits/platform";
import { mindOperationsObject } from "../../src/portability/mind-operations";
import { MIND_TABLES } from "../../src/portability/move/shard-rows";
import { call, newTenant, store } from "../../test/helpers";
import { dataOf } from "../../test/support/shards";
import type { ErasureResult, LimitsInput } from "../lib/limits-data";
import { cloneRows, fillMessages } from "./clone-rows";
import { progress } from "./report";
import { figuresOf, type Watch } from "./tallies";

/** The invocations of an erasure: the request, the operations object's runs, the session objects' calls. */
const ERASURE_CALLS = /^(fetch|MindOperationsObject\.(start|runFor|alarm)|SessionObject\.forget)$/;
/** Sessions written through the API, with messages, so their objects hold state. */
const REAL_SESSIONS = 3;
/** The operations object's alarms driven at most before the erasure is taken to be stuck. */
const MOST_ALARMS = 5_000;

async function expectOk(answer: Promise<{ status: number; text: string }>, what: string): Promise<{ status: number; json: unknown }> {
  const res = (await answer) as { status: number; text: string; json: unknown };
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

type Auth = { token: string; mind: string };

/** A few rows of each kind through the API: a memory changed once (two history rows), a note, sessions with messages. */
async function writeThroughApi(auth: Auth): Promise<string[]> {
  const memory = (await store(auth, { key: "tea", content: "Likes green tea in the morning" })) as { id: string };
  await expectOk(call("PUT", `/memory/${memory.id}`, { ...auth, body: { content: "Likes green tea in the morning, coffee after lunch" } }), "update");
  await expectOk(call("POST", "/notes", { ...auth, body: { text: "Prefers short answers" } }), "note");
  const sessions: string[] = [];
  for (let i = 0; i < REAL_SESSIONS; i++) {
    const created = await expectOk(call("POST", "/sessions", { ...auth, body: { repo_path: "/repo", task_name: `task ${i}` } }), "session");
    const id = (created.json as { id: string }).id;
    for (const content of ["Hello there", "Let us fix the build"]) {
      await expectOk(call("POST", `/sessions/${id}/messages`, { ...auth, body: { role: "user", content } }), "message");
    }
    sessions.push(id);
  }
  return sessions;
}

/** Keys stored by each session's object. */
async function objectKeys(sessionIds: string[]): Promise<number> {
  let keys = 0;
  for (const id of sessionIds) {
    const object = env.SESSIONS.get(env.SESSIONS.idFromName(id));
    keys += await runInDurableObject(object, async (_instance, state) => (await state.storage.list()).size);
  }
  return keys;
}

/** Rows naming the mind, per table, on its database and in the directory (tables with none left out). */
async function rowsLeft(shard: D1Database, mindId: string): Promise<Record<string, number>> {
  const count = async (db: D1Database, table: string, column = "mind_id") =>
    (await db.prepare(`select count(*) as n from "${table}" where ${column} = ?`).bind(mindId).first<{ n: number }>())?.n ?? 0;
  const where: [string, D1Database, string, string?][] = [
    ...[...MIND_TABLES, "imports"].map((t): [string, D1Database, string] => [`shard ${t}`, shard, t]),
    ["shard minds", shard, "minds", "id"],
    ["directory minds", env.DB, "minds", "id"],
    ...["mind_keys", "login_links", "telegram_chats", "oauth_grants", "dead_letters", "mind_moves"].map((t): [string, D1Database, string] => [`directory ${t}`, env.DB, t]),
  ];
  const left: Record<string, number> = {};
  for (const [name, db, table, column] of where) {
    const n = await count(db, table, column);
    if (n > 0) left[name] = n;
  }
  return left;
}

/**
 * A mind at its default quotas erased as the product erases it: DELETE /minds/:id (the request
 * marks it, counts it and waits for the operations object's first run), then the object's alarms until
 * nothing waits in it. Each invocation's D1 queries and subrequests are read from its tally.
 */
export async function measureErasure(input: LimitsInput, watch: Watch): Promise<ErasureResult> {
  const seedStart = Date.now();
  const tenant = await newTenant();
  const mindId = tenant.mind.id;
  const auth = { token: tenant.token, mind: mindId };
  const realSessions = await writeThroughApi(auth);
  const db = await dataOf(mindId);
  const clones = input.size - 1;
  await cloneRows(db, "memories", mindId, clones, { suffixed: ["id", "key"] });
  progress(`erase: ${input.size} memories`);
  await cloneRows(db, "memory_history", mindId, clones, { suffixed: ["memory_id"] });
  await cloneRows(db, "notes", mindId, clones, { suffixed: ["id"] });
  progress(`erase: ${input.size} notes and history rows`);
  await cloneRows(db, "sessions", mindId, input.sessions - REAL_SESSIONS, { suffixed: ["id", "task_name"] });
  await fillMessages(db, mindId, input.messagesPerSession);
  const seedMs = Date.now() - seedStart;
  const keysBefore = await objectKeys(realSessions);
  progress(`erase: ${input.sessions} sessions with ${input.messagesPerSession} messages each; seeded in ${(seedMs / 1000).toFixed(0)} s`);

  takePassedLimits();
  watch.reset();
  const start = Date.now();
  const receipt = await expectOk(call("DELETE", `/minds/${mindId}`, { token: tenant.token }), "erase");
  const object = mindOperationsObject(env.MIND_OPERATIONS, mindId);
  let alarms = 0;
  while ((await object.pending()).length > 0) {
    if (++alarms > MOST_ALARMS) throw new Error(`the erasure still has work after ${MOST_ALARMS} alarms`);
    await runDurableObjectAlarm(object);
    if (alarms % 20 === 0) progress(`erase: ${alarms} alarms, ${((Date.now() - start) / 1000).toFixed(0)} s`);
  }
  const wallMs = Date.now() - start;
  const calls = watch.settled().filter(({ tally }) => ERASURE_CALLS.test(tally.label));
  const passed = takePassedLimits().map((e) => e.message);
  const count = (pattern: RegExp) => calls.filter(({ tally }) => pattern.test(tally.label)).length;
  return {
    ...figuresOf(calls),
    deleted: (receipt.json as { deleted: Record<string, number> }).deleted,
    seedMs,
    wallMs,
    objectRuns: count(/^MindOperationsObject\.(runFor|alarm)$/),
    sessionObjectCalls: count(/^SessionObject\.forget$/),
    left: await rowsLeft(db, mindId),
    objectKeys: { objects: realSessions.length, before: keysBefore, after: await objectKeys(realSessions) },
    passed,
  };
}

import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDeps, type Deps } from "../../src/deps";
import worker from "../../src/index";
import { deleteMind } from "../../src/portability/erase";
import { testDeps } from "../support/deps";
import { recordingD1 } from "../support/recording-d1";
import { scriptedModel } from "../support/scripted-model";
import { rowsEverywhere } from "../support/shards";
import { chatObject, newPerson, type Person, sentTexts, settled, standInTelegram, textUpdate, useModel, WEBHOOK_SECRET } from "../support/telegram";

const telegram = standInTelegram();

// One chat turn touches the Worker's fetch (the webhook claims the update), the chat's object
// (identity, the turn) and the session's object (both appends). Each reaches D1 through
// recording handles here, so every statement of the turn is counted, wherever it runs.

interface TurnLog {
  webhook: string[];
  chat: string[];
  session: string[];
}

const newLog = (): TurnLog => ({ webhook: [], chat: [], session: [] });
const all = (log: TurnLog) => [...log.webhook, ...log.chat, ...log.session];

/** An object's deps seeing D1 through recording handles, as `createDeps` builds them with `wrap`. */
async function recordObject(stub: DurableObjectStub, log: string[]): Promise<void> {
  const recorded = createDeps(env, { wrap: (d1) => recordingD1(d1, log), semantic: false });
  await runInDurableObject(stub, (instance) => {
    const target = instance as unknown as { deps: Deps };
    target.deps = { ...target.deps, directory: recorded.directory, shards: recorded.shards };
  });
}

/** The mind of a person's Telegram chat, and the ids of its sessions. */
async function chatMind(p: Person): Promise<{ mindId: string; accountId: string; sessions: string[] }> {
  const row = await env.DB.prepare("select mind_id, account_id from telegram_chats where telegram_chat_id = ?").bind(p.chat.id).first<{ mind_id: string; account_id: string }>();
  if (!row) throw new Error("the chat has no mind yet");
  const sessions = await rowsEverywhere<{ id: string }>("select id from sessions where mind_id = ?", row.mind_id);
  return { mindId: row.mind_id, accountId: row.account_id, sessions: sessions.map((s) => s.id) };
}

/** One turn: the webhook through the Worker's fetch with recording databases, then the chat's object until it is done. */
async function turn(p: Person, text: string, log: TurnLog): Promise<void> {
  const recordingEnv = { ...env, DB: recordingD1(env.DB, log.webhook), SHARD_1: recordingD1(env.SHARD_1!, log.webhook) } as Env;
  const request: Request<unknown, IncomingRequestCfProperties> = new Request("https://edgemind.test/telegram/webhook", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET },
    body: JSON.stringify(textUpdate(p, text)),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, recordingEnv, ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  await settled(p.chat.id);
}

/** Records the next turn over every object it touches. */
async function recordedTurn(p: Person, text: string): Promise<TurnLog> {
  const log = newLog();
  await recordObject(chatObject(p.chat.id), log.chat);
  for (const id of (await chatMind(p)).sessions) await recordObject(env.SESSIONS.get(env.SESSIONS.idFromName(id)), log.session);
  await turn(p, text, log);
  return log;
}

/** A lookup of the mind's row; a write's quota guard reads the quotas stored there inside the write itself, and is not one. */
const readsMind = (sql: string) => /from "minds"|join "minds"/.test(sql) && !sql.includes('"quota_guard"');
/** The identity's upserts and lookups: the account, the chat's mind, the chat's row. */
const identityStatement = (sql: string) => /"accounts"|"telegram_chats"|insert into "chats"/.test(sql);

describe("one chat turn", () => {
  it("reads the mind at most once over every object it touches (not at all while the directory cache holds it), and a kept identity runs no upserts", async () => {
    const p = newPerson();
    await useModel(p.chat.id, scriptedModel(["Hello!", "You asked about tea.", "Still tea."]).model);
    // The first turn (no session yet, so no session object to record) builds the identity.
    const first = newLog();
    await recordObject(chatObject(p.chat.id), first.chat);
    await turn(p, "hello", first);

    const second = await recordedTurn(p, "what do I drink?");
    const third = await recordedTurn(p, "and now?");
    for (const [name, log] of [["second", second], ["third", third]] as const) {
      console.log(
        `chat turn (${name}): ${all(log).length} D1 statements (webhook ${log.webhook.length}, chat object ${log.chat.length}, session object ${log.session.length}); ` +
          `${all(log).filter(readsMind).length} read the mind; ${all(log).filter(identityStatement).length} identity upserts or lookups`,
      );
      expect(all(log).filter(readsMind).length).toBeLessThanOrEqual(1);
      expect(all(log).filter(identityStatement)).toEqual([]);
      // Both appends reached the session's object: its statements are counted too.
      expect(log.session.length).toBeGreaterThanOrEqual(2);
    }
    expect(all(first).filter(identityStatement).length).toBeGreaterThan(0);
  });

  it("builds the identity again when the language changes, and once its mind was erased", async () => {
    const p = newPerson("en");
    await useModel(p.chat.id, scriptedModel(["One.", "Two.", "Three."]).model);
    await turn(p, "hello", newLog());

    // A new language: the upserts run again.
    const russian: Person = { ...p, user: { ...p.user, language_code: "ru" } };
    const relocalised = await recordedTurn(russian, "привет");
    expect(all(relocalised).filter(identityStatement).length).toBeGreaterThan(0);

    // The mind erased: the kept identity finds it gone, and the chat gets a mind again.
    const before = await chatMind(p);
    await deleteMind(testDeps(), before.accountId, before.mindId);
    await turn(russian, "ещё раз", newLog());
    const after = await chatMind(p);
    expect(after.mindId).not.toBe(before.mindId);
    expect(sentTexts(telegram, p.chat.id)).toContain("Three.");
  });
});

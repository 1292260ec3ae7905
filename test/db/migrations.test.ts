import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const db = env.UPGRADE_DB;
const before = (name: string) => env.TEST_MIGRATIONS.filter((m) => m.name < name);
const from = (name: string) => env.TEST_MIGRATIONS.filter((m) => m.name >= name);

async function rows(sql: string): Promise<unknown[]> {
  return (await db.prepare(sql).all()).results;
}

describe("migrations upgrade a database that holds data", () => {
  it("chats and sessions gain a namespace and minds their usage, without losing a row, an index entry or a reference", async () => {
    await applyD1Migrations(db, before("0008"));
    const now = "2026-01-01T00:00:00.000Z";
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values ('acc_1', 'alice', ?)").bind(now),
      db.prepare("insert into minds (id, account_id, name, created_at, updated_at) values ('mind_1', 'acc_1', 'alice', ?1, ?1)").bind(now),
      db.prepare("insert into chats (id, mind_id, kind, external_id, created_at) values ('chat_api', 'mind_1', 'api', 'default', ?)").bind(now),
      db.prepare("insert into chats (id, mind_id, kind, external_id, created_at) values ('chat_tg', 'mind_1', 'telegram', '42', ?)").bind(now),
      db
        .prepare("insert into sessions (id, mind_id, chat_id, task_name, conversation_id, created_at) values ('ses_1', 'mind_1', 'chat_api', 'a', 'c1', ?)")
        .bind(now),
      db
        .prepare("insert into sessions (id, mind_id, chat_id, task_name, conversation_id, created_at) values ('ses_2', 'mind_1', 'chat_tg', 'b', 'c2', ?)")
        .bind(now),
      db.prepare("update chats set active_session_id = 'ses_1' where id = 'chat_api'"),
      db
        .prepare("insert into messages (mind_id, session_id, role, content, created_at, search_content) values ('mind_1', 'ses_1', 'user', 'hello capybara', ?, 'hello capybara')")
        .bind(now),
      db
        .prepare("insert into messages (mind_id, session_id, role, content, created_at, search_content) values ('mind_1', 'ses_2', 'user', 'second', ?, 'second')")
        .bind(now),
    ]);
    const snapshot = async () => ({
      chats: await rows("select id, mind_id, kind, external_id, active_session_id from chats order by id"),
      sessions: await rows("select id, mind_id, chat_id, task_name, conversation_id from sessions order by id"),
      messages: await rows("select id, session_id, content from messages order by id"),
      indexed: await rows("select rowid from messages_fts where messages_fts match 'capybara'"),
    });
    const old = await snapshot();
    expect(old.messages).toHaveLength(2);

    await applyD1Migrations(db, from("0008"));

    expect(await snapshot()).toEqual(old);
    expect(await rows("select id, agent from chats order by id")).toEqual([
      { id: "chat_api", agent: "default" },
      { id: "chat_tg", agent: "default" },
    ]);
    expect(await rows("select id, agent from sessions order by id")).toEqual([
      { id: "ses_1", agent: "default" },
      { id: "ses_2", agent: "default" },
    ]);
    // What the mind already held is counted for its quotas.
    expect(await rows("select mind_id, memories, notes, bytes from mind_usage")).toEqual([
      { mind_id: "mind_1", memories: 0, notes: 0, bytes: "hello capybara".length + "second".length },
    ]);
    // The cascade still runs: deleting a chat takes its sessions and messages with it.
    await db.prepare("delete from chats where id = 'chat_tg'").run();
    expect(await rows("select id from sessions order by id")).toEqual([{ id: "ses_1" }]);
    expect(await rows("select session_id from messages")).toEqual([{ session_id: "ses_1" }]);
  });
});

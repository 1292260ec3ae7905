import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { stems, toIndexText, toMatchExpression } from "../../src/memory/normalize";
import { freshDatabases } from "../support/fresh-databases";

// UPGRADE_DB must start empty (test/memory/search.test.ts migrates it fully).
beforeAll(freshDatabases);

const db = env.UPGRADE_DB;
const before = (name: string) => env.TEST_MIGRATIONS.filter((m) => m.name < name);
const from = (name: string, until = "9999") => env.TEST_MIGRATIONS.filter((m) => m.name >= name && m.name < until);

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

    await applyD1Migrations(db, from("0008", "0013"));

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

  it("every memory, note and message is indexed again behind its mind's token, none lost, none doubled", async () => {
    // The data as the code before 0013 wrote it: plain stems, space separated.
    const now = "2026-01-02T00:00:00.000Z";
    const plain = (text: string) => stems(text).join(" ");
    const texts = { a: "Маша любит петь по вечерам", b: "Deployments of the billing service", context: "Ёжик watched the deployment" };
    const minds = ["mind_01jdx0ab12cdefghjkmnpqrstv", "mind_01jdx0ab12cdefghjkmnpqrstw"];
    const statements = [db.prepare("insert into accounts (id, name, created_at) values ('acc_2', 'bob', ?)").bind(now)];
    for (const [i, mind] of minds.entries()) {
      statements.push(
        db.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?, 'acc_2', ?, ?3, ?3)").bind(mind, `m${i}`, now),
        db.prepare("insert into chats (id, mind_id, kind, external_id, created_at) values (?, ?, 'api', 'default', ?)").bind(`chat_u${i}`, mind, now),
        db
          .prepare("insert into sessions (id, mind_id, chat_id, task_name, conversation_id, created_at) values (?, ?, ?, 't', ?, ?)")
          .bind(`ses_u${i}`, mind, `chat_u${i}`, `cu${i}`, now),
        db
          .prepare(
            `insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence, created_at, updated_at,
              search_key, search_content, search_tags, context, search_context) values (?, ?, 'default', 'fact', 'loves_to_sing', ?, '["music"]', 'normal', 'user', 1, 1.0, ?4, ?4, ?, ?, ?, ?, ?)`,
          )
          .bind(`mem_u${i}`, mind, texts.a, now, plain("loves to sing"), plain(texts.a), plain("music"), texts.context, plain(texts.context)),
        db
          .prepare(
            "insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence, created_at, updated_at, search_key, search_content, search_tags) values (?, ?, 'default', 'fact', 'empty', '!!!', '[]', 'normal', 'user', 1, 1.0, ?3, ?3, '', '', '')",
          )
          .bind(`mem_e${i}`, mind, now),
        db
          .prepare("insert into notes (id, mind_id, agent, text, source, confidence, created_at, search_text, text_key, context, search_context) values (?, ?, 'default', ?, 'user', 1.0, ?, ?, ?, ?, ?)")
          .bind(`note_u${i}`, mind, texts.b, now, plain(texts.b), `key${i}`, texts.context, plain(texts.context)),
        db
          .prepare("insert into messages (mind_id, session_id, role, content, created_at, search_content, search_near) values (?, ?, 'user', ?, ?, ?, ?)")
          .bind(mind, `ses_u${i}`, texts.b, now, plain(texts.b), plain(texts.a)),
      );
    }
    await db.batch(statements);
    const snapshot = async () => ({
      memories: await rows("select id, mind_id, key, content, tags, context, updated_at from memories order by id"),
      notes: await rows("select id, mind_id, text, context from notes order by id"),
      messages: await rows("select id, mind_id, session_id, content from messages order by id"),
      indexed: {
        memories: await rows("select count(*) as n from memories_fts"),
        notes: await rows("select count(*) as n from notes_fts"),
        messages: await rows("select count(*) as n from messages_fts"),
      },
    });
    const old = await snapshot();

    await applyD1Migrations(db, from("0013"));

    expect(await snapshot()).toEqual(old);
    for (const mind of minds) {
      const memory = await db.prepare("select search_key, search_content, search_tags, search_context from memories where id = ?").bind(`mem_u${minds.indexOf(mind)}`).first();
      expect(memory).toEqual({
        search_key: toIndexText(mind, "loves to sing"),
        search_content: toIndexText(mind, texts.a),
        search_tags: toIndexText(mind, "music"),
        search_context: toIndexText(mind, texts.context),
      });
      expect(await db.prepare("select search_key, search_content from memories where id = ?").bind(`mem_e${minds.indexOf(mind)}`).first()).toEqual({ search_key: "", search_content: "" });
      expect(await db.prepare("select search_text, search_context from notes where mind_id = ?").bind(mind).first()).toEqual({
        search_text: toIndexText(mind, texts.b),
        search_context: toIndexText(mind, texts.context),
      });
      expect(await db.prepare("select search_content, search_near from messages where mind_id = ?").bind(mind).first()).toEqual({
        search_content: toIndexText(mind, texts.b),
        search_near: toIndexText(mind, texts.a),
      });
      // Each index finds the mind's own row by its token, and only that row.
      for (const [fts, table, key, q] of [
        ["memories_fts", "memories", "rowid", "любить"],
        ["memories_fts", "memories", "rowid", "ежик"],
        ["notes_fts", "notes", "rowid", "deployed"],
        ["messages_fts", "messages", "id", "петь"],
      ]) {
        const found = await rows(`select r.mind_id from ${fts} f join ${table} r on r.${key} = f.rowid where ${fts} match '${toMatchExpression(mind, q!)!.replaceAll("'", "''")}'`);
        expect(found, `${fts} ${q}`).toEqual([{ mind_id: mind }]);
      }
    }
    // The old bare terms are gone from every index, and each index agrees with its table.
    for (const fts of ["memories_fts", "notes_fts", "messages_fts"]) {
      expect(await rows(`select rowid from ${fts} where ${fts} match '"deploy" OR "люб"'`)).toEqual([]);
      await db.prepare(`insert into ${fts}(${fts}, rank) values ('integrity-check', 1)`).run();
    }
  });
});

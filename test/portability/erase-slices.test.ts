import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Deps } from "../../src/deps";
import { beginErasure, ERASE_SLICE } from "../../src/portability/erase";
import { MIND_TABLES } from "../../src/portability/move/shard-rows";
import { ERASE_SLICES_PER_RUN, type Left, OPERATIONS } from "../../src/portability/operations";
import { call, newTenant, store } from "../helpers";
import { testDeps } from "../support/deps";
import { recordingD1 } from "../support/recording-d1";
import { dataOf } from "../support/shards";

/** `n` copies of the mind's one row of `table`, ids suffixed with their number (a seeding shortcut: the same rows the write paths write). */
async function cloneRows(db: D1Database, table: string, mindId: string, n: number, ids: Record<string, string>): Promise<void> {
  const columns = (await db.prepare(`select name from pragma_table_info('${table}')`).all<{ name: string }>()).results.map((c) => c.name);
  const select = columns.map((c) => (c in ids ? `${ids[c]} || '_' || n.i` : c === "id" && table === "messages" ? "null" : `"${c}"`));
  await db
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?2)
       insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")})
       select ${select.join(", ")} from "${table}", n where mind_id = ?1 and rowid = (select min(rowid) from "${table}" where mind_id = ?1)`,
    )
    .bind(mindId, n)
    .run();
}

describe("erasing a large mind", () => {
  it("goes in runs of bounded slices, each resuming where the last stopped, and leaves nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "tea", content: "Likes green tea in the morning" });
    const created = await call("POST", "/sessions", { ...auth, body: { repo_path: "/repo", task_name: "seed" } });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { id: string }).id;
    expect((await call("POST", `/sessions/${sessionId}/messages`, { ...auth, body: { role: "user", content: "Hello there" } })).status).toBe(201);
    const db = await dataOf(t.mind.id);
    await cloneRows(db, "memories", t.mind.id, 8_000, { id: "id", key: "key" });
    await cloneRows(db, "sessions", t.mind.id, 130, { id: "id", task_name: "task_name" });
    // Each session gets messages of its own: 30 each.
    await db
      .prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < 30)
         insert into messages (mind_id, session_id, role, content, ephemeral, tool, created_at, search_content, search_near)
         select s.mind_id, s.id, 'user', 'message ' || n.i, 0, null, s.created_at, 'message', '' from sessions s, n where s.mind_id = ?`,
      )
      .bind(t.mind.id)
      .run();

    const statements: string[] = [];
    const objectCalls: string[] = [];
    const deps: Deps = {
      ...testDeps({ wrap: (d1) => recordingD1(d1, statements) }),
      sessionObjects: {
        idFromName: (name: string) => env.SESSIONS.idFromName(name),
        get: (id: DurableObjectId) => ({ forget: async () => void objectCalls.push(id.toString()) }),
      } as unknown as Deps["sessionObjects"],
    };
    const erasure = await beginErasure(deps, t.accountId, t.mind.id);
    expect(erasure.counts).toMatchObject({ memories: 8_001, sessions: 131, messages: 131 * 30 + 1 });

    const ref = { kind: "erase", mindId: t.mind.id } as const;
    let runs = 0;
    let most = { statements: 0, objectCalls: 0 };
    for (let left: Left = true; left !== false; runs++) {
      statements.length = 0;
      objectCalls.length = 0;
      let slices = 0;
      left = await OPERATIONS.erase.run(deps, ref, () => slices++ < ERASE_SLICES_PER_RUN, async () => undefined);
      most = { statements: Math.max(most.statements, statements.length), objectCalls: Math.max(most.objectCalls, objectCalls.length) };
      expect(runs).toBeLessThan(100);
    }
    // Several runs, each bounded whatever the mind's size: never a first page again.
    expect(runs).toBeGreaterThan(1);
    expect(most.objectCalls).toBeLessThanOrEqual(ERASE_SLICES_PER_RUN * ERASE_SLICE.sessions);
    expect(most.statements).toBeLessThanOrEqual(ERASE_SLICES_PER_RUN * 16);

    for (const table of MIND_TABLES) {
      const row = await db.prepare(`select count(*) as n from "${table}" where mind_id = ?`).bind(t.mind.id).first<{ n: number }>();
      expect(row?.n, table).toBe(0);
    }
    expect(await env.DB.prepare("select id from minds where id = ?").bind(t.mind.id).first()).toBeNull();
    const receipt = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    expect(receipt.json).toMatchObject({ finished: true, deleted: { memories: 8_001, sessions: 131 } });
  });

  it("answers a request with the progress while the rest goes on in the background", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "tea", content: "Likes green tea" });
    const db = await dataOf(t.mind.id);
    // Three runs' worth: the request waits for the first, and the object's alarm may be into the second.
    const rows = 3 * ERASE_SLICES_PER_RUN * ERASE_SLICE.rows;
    await cloneRows(db, "memories", t.mind.id, rows, { id: "id", key: "key" });
    const res = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ finished: false, deleted: { memories: rows + 1 }, left: { memories: expect.any(Number) } });
    expect((await call("GET", `/minds/${t.mind.id}`, { token: t.token })).status).toBe(404);
    // The rest finishes by the object's alarms; the test waits for it, so none of its work (and
    // none of its log lines) outlives the test in the shared runtime.
    let receipt = res;
    for (let i = 0; i < 300 && receipt.json.finished !== true; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      receipt = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    }
    expect(receipt.json).toMatchObject({ finished: true, deleted: { memories: rows + 1 } });
  });
});

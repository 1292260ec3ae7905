import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getImport, runImport } from "../../src/portability/import/imports";
import { testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";

// UPGRADE_DB must start empty: this file migrates it to 0024, writes imports as the code before
// 0025 did, then applies 0025 and the rest.
beforeAll(freshDatabases);

const db = env.UPGRADE_DB;
const RENAME = "0025";
const before = env.TEST_MIGRATIONS.filter((m) => m.name < RENAME);
const after = env.TEST_MIGRATIONS.filter((m) => m.name >= RENAME);

const at = "2026-01-01T00:00:00.000Z";
const restore = JSON.stringify({ locale: "en", retentionHours: null, settings: {} });
const memoryLine = (id: string, key: string) => ({
  type: "memory", id, agent: "default", category: "fact", key, content: `the ${key.replaceAll("_", " ")}`, tags: [],
  priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at,
});
const archive = [
  { type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "old", locale: "en", retention_hours: null, settings: {} } },
  memoryLine("mem_old", "lighthouse_colour"),
].map((line) => JSON.stringify(line)).join("\n");

async function rows(sql: string): Promise<unknown[]> {
  return (await db.prepare(sql).all()).results;
}

const importJob = (id: string, mindId: string, state: string, slices: number) =>
  db
    .prepare(`insert into import_jobs (id, mind_id, state, rows_total, slices_total, restore, created_at, updated_at)
      values (?, ?, ?, ?4, ?4, ?, ?6, ?6)`)
    .bind(id, mindId, state, slices, restore, at);

describe("migration 0025 renames the imports of a database that holds unfinished ones", () => {
  it("keeps their staged rows and archive parts under import_id, their cascades, and the product goes on with them", async () => {
    await applyD1Migrations(db, before);
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values ('acc_imp', 'importer', ?)").bind(at),
      ...["mind_staged", "mind_stored"].map((id) =>
        db.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?, 'acc_imp', ?, ?3, ?3)").bind(id, id, at)),
      // Staged by the code before 0025, one slice left to write.
      importJob("imp_staged", "mind_staged", "queued", 1),
      db
        .prepare("insert into import_rows (job_id, slice, seq, kind, data) values ('imp_staged', 0, 0, 'memory', ?)")
        .bind(JSON.stringify(memoryLine("mem_staged", "harbour_road"))),
      // Its archive stored by its request, not checked yet.
      importJob("imp_stored", "mind_stored", "checking", 0),
      db.prepare("insert into import_parts (job_id, part, data) values ('imp_stored', 0, ?)").bind(archive),
      // An ended import that still holds a staged row and a part, to delete.
      importJob("imp_ended", "mind_staged", "failed", 1),
      db.prepare("insert into import_rows (job_id, slice, seq, kind, data) values ('imp_ended', 0, 0, 'memory', '{}')"),
      db.prepare("insert into import_parts (job_id, part, data) values ('imp_ended', 0, 'x')"),
    ]);

    await applyD1Migrations(db, after);

    expect(await rows("select id, mind_id, state from imports order by id")).toEqual([
      { id: "imp_ended", mind_id: "mind_staged", state: "failed" },
      { id: "imp_staged", mind_id: "mind_staged", state: "queued" },
      { id: "imp_stored", mind_id: "mind_stored", state: "checking" },
    ]);
    expect(await rows("select import_id, slice, seq, kind from import_rows order by import_id")).toEqual([
      { import_id: "imp_ended", slice: 0, seq: 0, kind: "memory" },
      { import_id: "imp_staged", slice: 0, seq: 0, kind: "memory" },
    ]);
    expect(await rows("select import_id, part from import_parts order by import_id")).toEqual([
      { import_id: "imp_ended", part: 0 },
      { import_id: "imp_stored", part: 0 },
    ]);
    // Nothing in the schema names the old table or columns: a trigger, view or index left on them would fail its next write.
    expect(await rows("select name from sqlite_master where sql like '%import_jobs%' or sql like '%job_id%' or name like 'import_jobs%'")).toEqual([]);
    for (const table of ["import_rows", "import_parts"]) {
      expect(await rows(`select "table", "from", "to", on_delete from pragma_foreign_key_list('${table}')`)).toEqual([
        { table: "imports", from: "import_id", to: "id", on_delete: "CASCADE" },
      ]);
    }

    // Deleting an import takes its staged rows and parts with it.
    await db.prepare("delete from imports where id = 'imp_ended'").run();
    expect(await rows("select import_id from import_rows where import_id = 'imp_ended'")).toEqual([]);
    expect(await rows("select import_id from import_parts where import_id = 'imp_ended'")).toEqual([]);
    // A slice written twice is still refused whole by the guard the slices' batches end with.
    await expect(db.prepare("insert into import_guard (ok) values (0)").run()).rejects.toThrow(/import_slice_taken|CHECK/);

    // The product's code finishes both imports from where the code before 0025 left them.
    const deps = testDeps({ d1: db });
    expect(await runImport(deps, "mind_staged", "imp_staged", () => true)).toMatchObject({ state: "done", rows_written: 1 });
    expect(await runImport(deps, "mind_stored", "imp_stored", () => true)).toMatchObject({ state: "done", rows_total: 2, rows_written: 2 });
    expect(await getImport(deps, "acc_imp", "mind_stored", "imp_stored")).toMatchObject({ state: "done", counts: { memories: 1 } });
    expect(await rows("select mind_id, key from memories order by mind_id")).toEqual([
      { mind_id: "mind_staged", key: "harbour_road" },
      { mind_id: "mind_stored", key: "lighthouse_colour" },
    ]);
    expect(await rows("select import_id from import_rows union all select import_id from import_parts")).toEqual([]);

    // Deleting a mind takes its imports with it.
    await db.prepare("delete from minds where id = 'mind_stored'").run();
    expect(await rows("select id from imports order by id")).toEqual([{ id: "imp_staged" }]);
  });
});

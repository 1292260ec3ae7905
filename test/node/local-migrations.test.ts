// The local migrations run in one runtime must leave what `wrangler d1 migrations apply --local`
// leaves: the same files, schema and applied rows, so wrangler later finds nothing to apply.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { applyMigrations, root, wrangler, wranglerEnv } from "../../scripts/local.mjs";
import { applyLocalMigrations, localDatabases, migrationNames } from "../../scripts/local-d1.mjs";

mkdirSync(path.join(root, ".tmp"), { recursive: true });
const scratch = mkdtempSync(path.join(root, ".tmp", "local-migrations-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function wranglerApply(binding: string, cwd: string, state: string, config?: string): string {
  const args = ["d1", "migrations", "apply", binding, "--local", "--persist-to", state, ...(config ? ["-c", config] : [])];
  const run = spawnSync(wrangler, args, { cwd, env: wranglerEnv, encoding: "utf8" });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return run.stdout;
}

/** Each local database file by name: its schema and the migrations it records as applied. */
function snapshot(state: string): Record<string, { schema: unknown[]; applied: unknown[] }> {
  const folder = path.join(state, "v3", "d1", "miniflare-D1DatabaseObject");
  // metadata.sqlite is the runtime's own bookkeeping; every other file is one database.
  const files = readdirSync(folder).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  return Object.fromEntries(
    files.map((file) => {
      const db = new Database(path.join(folder, file), { readonly: true });
      const schema = db.prepare("select type, name, tbl_name, sql from sqlite_master where name not like '_cf_%' order by name").all();
      const applied = db.prepare("select id, name from d1_migrations order by id").all();
      db.close();
      return [file, { schema, applied }];
    }),
  );
}

test("after every local database is migrated, wrangler's own migrations apply finds nothing to apply", async () => {
  const state = path.join(scratch, "project");
  assert.ok(await applyMigrations({ persistTo: state }));
  const databases = await localDatabases(path.join(root, "wrangler.toml"));
  assert.deepEqual(
    databases.map((d) => d.binding),
    ["DB", "SHARD_1"],
  );
  for (const { binding } of databases) assert.match(wranglerApply(binding, root, state), /No migrations to apply/, binding);
  for (const file of Object.values(snapshot(state))) assert.equal(file.applied.length, migrationNames(path.join(root, "migrations")).length);
});

test("the same migrations leave the same database file, schema and applied rows as wrangler's", async () => {
  const project = path.join(scratch, "small");
  mkdirSync(path.join(project, "migrations"), { recursive: true });
  for (const name of migrationNames(path.join(root, "migrations")).slice(0, 2)) {
    copyFileSync(path.join(root, "migrations", name), path.join(project, "migrations", name));
  }
  const config = path.join(project, "wrangler.toml");
  writeFileSync(config, 'name = "small"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "small"\ndatabase_id = "00000000-0000-0000-0000-00000000000a"\n');
  wranglerApply("DB", project, path.join(project, "by-wrangler"), config);
  assert.ok(await applyLocalMigrations(config, path.join(project, "in-one-runtime")));
  const expected = snapshot(path.join(project, "by-wrangler"));
  assert.equal(Object.keys(expected).length, 1);
  assert.deepEqual(snapshot(path.join(project, "in-one-runtime")), expected);
});

test("a migration that fails is named, leaves nothing of itself, and the ones before it stay applied", async () => {
  const project = path.join(scratch, "broken");
  mkdirSync(path.join(project, "migrations"), { recursive: true });
  writeFileSync(path.join(project, "migrations", "0001_good.sql"), "CREATE TABLE good (id INTEGER);\n");
  writeFileSync(path.join(project, "migrations", "0002_bad.sql"), "CREATE TABLE half (id INTEGER);\nINSERT INTO missing VALUES (1);\n");
  const config = path.join(project, "wrangler.toml");
  writeFileSync(config, 'name = "broken"\n\n[[d1_databases]]\nbinding = "DB"\ndatabase_name = "broken"\ndatabase_id = "00000000-0000-0000-0000-00000000000b"\n');
  const errors: string[] = [];
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    assert.equal(await applyLocalMigrations(config, path.join(project, "state")), false);
  } finally {
    console.error = original;
  }
  assert.match(errors.join("\n"), /DB: the migrations failed at 0002_bad\.sql: .*missing/);
  const [file] = Object.values(snapshot(path.join(project, "state")));
  assert.deepEqual(file?.applied, [{ id: 1, name: "0001_good.sql" }]);
  assert.ok(!file?.schema.some((o) => (o as { name: string }).name === "half"));
});

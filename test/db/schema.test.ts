import { env } from "cloudflare:workers";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import * as directory from "../../src/db/schema/directory";
import * as shard from "../../src/db/schema/shard";
import { MIND_TABLES } from "../../src/portability/move/shard-rows";

// The schema says where each table lives: the directory's in schema/directory.ts, a shard's in
// schema/shard.ts. Checked against the migrations (which tables exist, which are fenced during
// a move, their columns) and against the tables a move copies.

const tablesOf = (module: Record<string, unknown>) =>
  Object.values(module).filter((value): value is SQLiteTable => is(value, SQLiteTable));
const namesOf = (module: Record<string, unknown>) => tablesOf(module).map((t) => getTableConfig(t).name).sort();

const migrationSql = () => env.TEST_MIGRATIONS.flatMap((m) => m.queries).join("\n");
/** The tables the migrations leave: each created, under the name its last rename gave it. */
const created = () => {
  const names = new Set([...migrationSql().matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?(\w+)"?/gi)].map((m) => m[1]!));
  for (const [, from, to] of migrationSql().matchAll(/ALTER TABLE "?(\w+)"? RENAME TO "?(\w+)"?/gi)) {
    names.delete(from!);
    names.add(to!);
  }
  return [...names];
};
/** The tables a move fences (migrations/0014_shards.sql and later): a mind's data. */
const fenced = () => [...new Set([...migrationSql().matchAll(/CREATE TRIGGER (\w+)_fence_insert/gi)].map((m) => m[1]!))];
/** Tables the code reaches with plain SQL only, outside drizzle. */
const SQL_ONLY = ["ui_sessions"];

describe("the schema says which database holds each table", () => {
  it("puts every table of the migrations in exactly one of the directory and a shard", () => {
    const inDirectory = namesOf(directory);
    const inShard = namesOf(shard);
    expect(inDirectory.filter((name) => inShard.includes(name))).toEqual([]);
    const declared = [...inDirectory, ...inShard, ...SQL_ONLY].sort();
    expect(created().filter((name) => !name.endsWith("_fts")).sort()).toEqual(declared);
    expect(namesOf(schema)).toEqual([...inDirectory, ...inShard].sort());
  });

  it("keeps a mind's data, the tables a move fences and copies, on a shard", () => {
    const inShard = namesOf(shard);
    expect(fenced().length).toBeGreaterThan(5);
    expect(fenced().filter((name) => !inShard.includes(name))).toEqual([]);
    expect(MIND_TABLES.filter((name) => !inShard.includes(name))).toEqual([]);
    for (const name of ["accounts", "minds", "mind_keys", "mind_moves", "dead_letters"]) expect(namesOf(directory)).toContain(name);
  });

  it("declares the columns the migrations create", async () => {
    for (const table of [...tablesOf(directory), ...tablesOf(shard)]) {
      const { name, columns } = getTableConfig(table);
      const { results } = await env.DB.prepare(`select name from pragma_table_info(?)`).bind(name).all<{ name: string }>();
      expect(columns.map((c) => c.name).sort(), name).toEqual(results.map((r) => r.name).sort());
    }
  });
});

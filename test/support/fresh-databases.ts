import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { everyDatabase } from "./shards";

// The suite runs its files one after another in a shared runtime (vitest.config.ts), so the
// databases hold what the files before wrote. A file whose jobs sweep every mind (consolidation,
// collection, retention, backfill) and count what they did, or that uses UPGRADE_DB, starts
// from a new deployment instead: `beforeAll(freshDatabases)`.

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function schemaObjects(db: D1Database) {
  const query = `select type, name, sql from sqlite_master where type in ('table', 'view', 'trigger')
    and substr(name, 1, 7) <> 'sqlite_' and substr(name, 1, 4) <> '_cf_' order by rowid desc`;
  return (await db.prepare(query).all<{ type: string; name: string; sql: string | null }>()).results;
}

/**
 * Drops every trigger, view and table of a database, d1_migrations with them. Triggers go first
 * so no FTS index is written on the way; FTS tables take their shadow tables along; a table
 * another one still refers to goes on a later pass.
 */
export async function emptyDatabase(db: D1Database): Promise<void> {
  for (const kind of ["trigger", "view"]) {
    for (const o of (await schemaObjects(db)).filter((o) => o.type === kind)) await db.prepare(`drop ${kind} if exists ${quoted(o.name)}`).run();
  }
  for (const o of (await schemaObjects(db)).filter((o) => /^create virtual table/i.test(o.sql ?? ""))) {
    await db.prepare(`drop table if exists ${quoted(o.name)}`).run();
  }
  for (let pass = 1; ; pass++) {
    const tables = (await schemaObjects(db)).filter((o) => o.type === "table");
    if (tables.length === 0) return;
    const errors: string[] = [];
    for (const table of tables) {
      await db
        .prepare(`drop table if exists ${quoted(table.name)}`)
        .run()
        .catch((error: unknown) => errors.push(`${table.name}: ${error instanceof Error ? error.message : String(error)}`));
    }
    if (pass === 10 && errors.length > 0) throw new Error(`could not empty the database: ${errors.join("; ")}`);
  }
}

/**
 * Storage as a new deployment has it: Durable Objects and KV deleted (`reset`), every D1
 * database emptied (in a long run `reset` was seen to leave one database's tables in place), then the
 * directory and each shard migrated again; UPGRADE_DB stays empty.
 */
export async function freshDatabases(): Promise<void> {
  await reset();
  for (const db of [...everyDatabase(), env.UPGRADE_DB]) await emptyDatabase(db);
  for (const db of everyDatabase()) await applyD1Migrations(db, env.TEST_MIGRATIONS);
}

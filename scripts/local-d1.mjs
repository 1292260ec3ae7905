// The D1 migrations of every local database, applied by one local runtime in this process.
// `wrangler d1 migrations apply --local` starts a runtime per migration (48 for 24 migrations on
// two databases, over a minute); this runs the same statements, split by wrangler's own splitter,
// in the same batches, into the same files, so a later `migrations apply` finds nothing to do.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** wrangler's table of applied migrations, created with wrangler's own text so the schema is identical. */
const migrationsTableSql = (table) => `CREATE TABLE IF NOT EXISTS ${table}(
\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,
\t\tname       TEXT UNIQUE,
\t\tapplied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

/** A migration's SQL followed by the row wrangler writes for it, in the one batch wrangler runs. */
const migrationSql = (sql, table, name) => `${sql}
\t\t\t\t\t\t\t\tINSERT INTO ${table} (name)
\t\t\t\t\t\t\t\tvalues ('${name}');
\t\t\t\t\t\t`;

/**
 * The D1 databases a wrangler config declares, in order, as `wrangler d1 migrations apply --local`
 * sees them: the id its local file is named by, the migrations folder and the table of applied ones.
 */
export async function localDatabases(configPath) {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: configPath }, { hideWarnings: true });
  return config.d1_databases.map((d) => ({
    binding: d.binding,
    id: d.preview_database_id ?? d.database_id ?? d.binding,
    migrationsDir: path.resolve(path.dirname(configPath), d.migrations_dir || "migrations"),
    table: d.migrations_table || "d1_migrations",
  }));
}

/** The migration files of a folder in wrangler's order: by name, then stably by the number before the first "_". */
export function migrationNames(folder) {
  const names = readdirSync(folder)
    .filter((name) => name.endsWith(".sql"))
    .sort();
  return names.sort((a, b) => Number.parseInt(a.split("_")[0], 10) - Number.parseInt(b.split("_")[0], 10));
}

/**
 * Applies a database's unapplied migrations one batch each, in order, stopping at the first that
 * fails (its batch leaves nothing behind). Resolves the names applied; a failure rejects with an
 * error naming the migration.
 */
async function migrateDatabase(db, database, split) {
  const run = (sql) => db.batch(split(sql).map((query) => db.prepare(query)));
  await run(migrationsTableSql(database.table));
  const done = new Set((await db.prepare(`SELECT name FROM ${database.table} ORDER BY id`).all()).results.map((r) => r.name));
  const applied = [];
  for (const name of migrationNames(database.migrationsDir).filter((n) => !done.has(n))) {
    const sql = readFileSync(path.join(database.migrationsDir, name), "utf8");
    await run(migrationSql(sql, database.table, name)).catch((error) => {
      throw new Error(`${name}: ${error?.cause?.message ?? error?.message ?? error}`);
    });
    applied.push(name);
  }
  return applied;
}

/**
 * Applies the migrations to every database `configPath` declares, under the local state
 * directory `persistTo` (wrangler's default .wrangler/state beside the config when absent), one
 * database after another. Prints one line per database; resolves true when every one is up to date.
 */
export async function applyLocalMigrations(configPath, persistTo) {
  const [{ Miniflare }, { unstable_splitSqlQuery: split }] = await Promise.all([import("miniflare"), import("wrangler")]);
  const databases = await localDatabases(configPath);
  const state = persistTo ? path.resolve(path.dirname(configPath), persistTo) : path.join(path.dirname(configPath), ".wrangler", "state");
  const d1Databases = Object.fromEntries(databases.map((d) => [d.binding, d.id]));
  const mf = new Miniflare({ modules: true, script: "", d1Persist: path.join(state, "v3", "d1"), d1Databases });
  let ok = true;
  try {
    for (const database of databases) {
      try {
        const applied = await migrateDatabase(await mf.getD1Database(database.binding), database, split);
        console.log(`${database.binding}: ${applied.length === 0 ? "migrations up to date" : `${applied.length} migrations applied`}`);
      } catch (error) {
        console.error(`${database.binding}: the migrations failed at ${error instanceof Error ? error.message : String(error)}`);
        ok = false;
      }
    }
  } finally {
    await mf.dispose();
  }
  return ok;
}

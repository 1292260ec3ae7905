import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

const MIGRATIONS = path.join(import.meta.dirname, "../../migrations");

/** A raw SQLite database (better-sqlite3, FTS5) with edgemind's migrations applied. */
export function migratedSqlite(): Database.Database {
  const db = new Database(":memory:");
  db.pragma("foreign_keys = ON");
  for (const file of readdirSync(MIGRATIONS).filter((f) => f.endsWith(".sql")).sort()) {
    db.exec(readFileSync(path.join(MIGRATIONS, file), "utf8"));
  }
  return db;
}

/** D1 binds booleans as 0/1; better-sqlite3 wants them so too. */
export const sqliteParams = (params: readonly unknown[]) => params.map((p) => (typeof p === "boolean" ? Number(p) : p));

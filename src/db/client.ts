import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import type { Shards } from "./shards";

export type Db = ReturnType<typeof createDb>;

/** The one way domain code reaches D1. Every query on tenant data is scoped by mind. */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

interface HasShards {
  db: Db;
  shards?: Shards;
}

/** The database that holds the data of a mind living on `shard` (its row's `shard`). */
export function databaseOfMind(deps: HasShards, shard: string): Db {
  return deps.shards ? deps.shards.db(shard) : deps.db;
}

/** The directory: accounts, minds, keys, grants, login links, Telegram claims and job runs. */
export function directoryOf(deps: HasShards): Db {
  return deps.shards ? deps.shards.directory : deps.db;
}

/** Every database holding minds' data, with its name: what a job that scans across minds walks. */
export function everyShard(deps: HasShards): { name: string; db: Db }[] {
  return deps.shards ? deps.shards.names.map((name) => ({ name, db: deps.shards!.db(name) })) : [{ name: "DB", db: deps.db }];
}

// D1 binds at most 100 parameters a statement; a lookup by ids leaves room for the scope's.
const ID_CHUNK = 90;

/** Rows looked up by id, a bounded number of ids a statement. */
export async function inIdChunks<T>(ids: string[], lookup: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) rows.push(...(await lookup(ids.slice(i, i + ID_CHUNK))));
  return rows;
}

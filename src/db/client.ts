import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import type { Shards } from "./shards";

export type Db = ReturnType<typeof createDb>;

/** Work on one database: a mind's shard, or each shard in turn. */
export interface InDb {
  shard: Db;
}

/** The one way domain code reaches D1. Every query on tenant data is scoped by mind. */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

/** Every database holding minds' data, with its name: what a job that scans across minds walks. */
export function everyShard({ shards }: { shards: Shards }): { name: string; db: Db }[] {
  return shards.names.map((name) => ({ name, db: shards.db(name) }));
}

// D1 binds at most 100 parameters a statement; a lookup by ids leaves room for the scope's.
const ID_CHUNK = 90;

/** Rows looked up by id, a bounded number of ids a statement. */
export async function inIdChunks<T>(ids: string[], lookup: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) rows.push(...(await lookup(ids.slice(i, i + ID_CHUNK))));
  return rows;
}

import { createDb, type Db } from "./client";

/** The directory's binding, which also serves as the first shard. */
export const DIRECTORY = "DB";
/** Shard bindings besides DB are named SHARD_1, SHARD_2, … in wrangler.toml. */
const SHARD_BINDING = /^SHARD_[1-9][0-9]*$/;

/**
 * The databases of a deployment: the directory (accounts, minds with their shard, keys,
 * Telegram claims, login links, job runs) and every shard that holds minds' data, DB first.
 */
export interface Shards {
  directory: Db;
  /** Binding names, DB first, then SHARD_1, SHARD_2, … in order. */
  names: readonly string[];
  /** The database of a shard; a name the deployment does not declare is a configuration error. */
  db(name: string): Db;
}

/** The shards declared as D1 bindings: DB and every SHARD_<n>. */
export function createShards(env: object): Shards {
  const bindings = env as Record<string, unknown>;
  const extra = Object.keys(bindings)
    .filter((name) => SHARD_BINDING.test(name) && bindings[name] !== undefined)
    .sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
  const names = [DIRECTORY, ...extra];
  const dbs = new Map(names.map((name) => [name, createDb(bindings[name] as D1Database)]));
  return {
    directory: dbs.get(DIRECTORY)!,
    names,
    db(name) {
      const db = dbs.get(name);
      if (!db) throw new Error(`the shard ${name} is not declared: add a [[d1_databases]] binding named ${name} to wrangler.toml`);
      return db;
    },
  };
}

/** A deployment of one database: the directory is the only shard. */
export function singleShard(db: Db): Shards {
  return { directory: db, names: [DIRECTORY], db: () => db };
}

/** One item from each list in turn, up to `limit`: work found on every shard, no shard starved. */
export function roundRobin<T>(lists: readonly (readonly T[])[], limit: number): T[] {
  const out: T[] = [];
  for (let i = 0; out.length < limit && lists.some((list) => i < list.length); i++) {
    for (const list of lists) if (i < list.length && out.length < limit) out.push(list[i]!);
  }
  return out;
}

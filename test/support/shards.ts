import { env } from "cloudflare:workers";

// Minds live on two databases in the tests (DB and SHARD_1, as in wrangler.toml): a test that
// reads a mind's rows directly reads them where the directory says the mind lives.

/** Every database of the test deployment, the directory first. */
export const everyDatabase = (): D1Database[] => [env.DB, env.SHARD_1!];

/** The database holding a mind's data. */
export async function dataOf(mindId: string): Promise<D1Database> {
  const row = await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<{ shard: string }>();
  return (env as unknown as Record<string, D1Database>)[row?.shard ?? "DB"]!;
}

/** A query's rows from every database, concatenated (rows found by a key other than the mind). */
export async function rowsEverywhere<T>(query: string, ...binds: unknown[]): Promise<T[]> {
  const results = await Promise.all(everyDatabase().map((db) => db.prepare(query).bind(...binds).all<T>()));
  return results.flatMap((r) => r.results);
}

/** The first row a query finds in any database, or null. */
export async function firstEverywhere<T>(query: string, ...binds: unknown[]): Promise<T | null> {
  return (await rowsEverywhere<T>(query, ...binds))[0] ?? null;
}

/** The sum over every database of a query answering `n`. */
export async function countEverywhere(query: string, ...binds: unknown[]): Promise<number> {
  return (await rowsEverywhere<{ n: number }>(query, ...binds)).reduce((sum, r) => sum + r.n, 0);
}

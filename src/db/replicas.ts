import { createDb, type Db } from "./client";

/** A D1 bookmark: the position of one database's history (`xxxxxxxx-xxxxxxxx-xxxxxxxx-` and 32 hex digits). */
export const D1_BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** A database read through one D1 session (Sessions API), and the newest bookmark it has seen. */
export interface ReplicaReads {
  db: Db;
  bookmark(): string | null;
}

/**
 * Reads of `db` through a D1 session: from any replica at least as new as `bookmark`, or, with
 * none, first from the primary. Every statement of the session sees the ones before it. Writes
 * through it still go to the primary. drizzle's D1 driver calls only `prepare` and `batch`,
 * which a session has, so the session serves as its client.
 */
export function readFromReplicas(db: Db, bookmark: string | null): ReplicaReads {
  const session = db.$client.withSession(bookmark ?? "first-primary");
  return { db: createDb(session as unknown as D1Database), bookmark: () => session.getBookmark() };
}

/**
 * The primary's newest bookmark: asked after a write, it covers every write committed before,
 * whichever binding made it (a Durable Object's included). One statement that reads no row.
 */
export async function newestBookmark(db: Db): Promise<string | null> {
  const session = db.$client.withSession("first-primary");
  await session.prepare("select 1").first();
  return session.getBookmark();
}

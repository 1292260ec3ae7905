import { createDb, type Db } from "./client";

/** A D1 bookmark: the position of one database's history (`xxxxxxxx-xxxxxxxx-xxxxxxxx-` and 32 hex digits). */
export const D1_BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** A database read through one D1 session (Sessions API), and the newest bookmark it has seen. */
export interface ReplicaReads {
  db: Db;
  bookmark(): string | null;
  /** Whether D1 refused the bookmark the session started at (it went on from the primary). */
  refused(): boolean;
}

/** Where a session starts: a bookmark, the primary, or any replica (reads a few seconds stale are harmless). */
export type SessionStart = string | "first-primary" | "first-unconstrained";

/**
 * `db` through one D1 session (Sessions API) starting at `start`: a replica at least as new as
 * a bookmark serves it. Every statement of the session sees the ones before it, its writes
 * included (they go to the primary), and its bookmark after a write covers the write. drizzle's
 * D1 driver calls only `prepare` and `batch`, which a session has, so the session serves as its
 * client. A session started at a bookmark D1 refuses (one from before a restore, say) goes on
 * from the primary: never an error for the caller.
 */
export function readFromReplicas(db: Db, start: SessionStart): ReplicaReads {
  if (!D1_BOOKMARK.test(start)) {
    const session = db.$client.withSession(start);
    return { db: createDb(session as unknown as D1Database), bookmark: () => session.getBookmark(), refused: () => false };
  }
  const fallback = new FallbackSession(db.$client, start);
  return { db: createDb(fallback as unknown as D1Database), bookmark: () => fallback.session.getBookmark(), refused: () => fallback.refused };
}

/** Reads only: a round trip of these may be sent again. */
const READ = /^\s*(select|with)\b/i;
const WRITE = /\b(insert|update|delete|replace)\b/i;
const onlyReads = (statements: LazyStatement[]) => statements.every((s) => READ.test(s.sql) && !WRITE.test(s.sql));

/**
 * A session at a bookmark whose first round trip, if it fails and only reads, is sent again on
 * a fresh session at the primary, which serves the rest. Statements are prepared on the session
 * when they run, so the ones drizzle prepared before the switch run on the fresh one.
 */
class FallbackSession {
  session: D1DatabaseSession;
  refused = false;
  private answered = false;

  constructor(
    private readonly client: D1Database,
    start: string,
  ) {
    this.session = client.withSession(start);
  }

  prepare(sql: string): LazyStatement {
    return new LazyStatement(this, sql, []);
  }

  batch(statements: LazyStatement[]): Promise<D1Result[]> {
    return this.trip(statements, (session) => session.batch(statements.map((s) => s.on(session))));
  }

  async trip<T>(statements: LazyStatement[], send: (session: D1DatabaseSession) => Promise<T>): Promise<T> {
    if (this.answered) return send(this.session);
    try {
      const answer = await send(this.session);
      this.answered = true;
      return answer;
    } catch (error) {
      if (this.answered || !onlyReads(statements)) throw error;
      this.answered = true;
      this.refused = true;
      this.session = this.client.withSession("first-primary");
      return send(this.session);
    }
  }
}

/** A statement of a FallbackSession, prepared on whichever session serves it when it runs. */
class LazyStatement {
  constructor(
    private readonly owner: FallbackSession,
    readonly sql: string,
    private readonly params: unknown[],
  ) {}

  bind(...params: unknown[]): LazyStatement {
    return new LazyStatement(this.owner, this.sql, params);
  }

  on(session: D1DatabaseSession): D1PreparedStatement {
    const statement = session.prepare(this.sql);
    return this.params.length > 0 ? statement.bind(...this.params) : statement;
  }

  all<T>(): Promise<D1Result<T>> {
    return this.owner.trip([this], (session) => this.on(session).all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.owner.trip([this], (session) => this.on(session).run<T>());
  }

  first<T>(column?: string): Promise<T | null> {
    return this.owner.trip([this], (session) => (column === undefined ? this.on(session).first<T>() : this.on(session).first<T>(column)));
  }

  raw<T extends unknown[]>(options?: { columnNames?: boolean }): Promise<T[]> {
    return this.owner.trip([this], (session) => (options?.columnNames ? this.on(session).raw<T>({ columnNames: true }) : this.on(session).raw<T>()) as Promise<T[]>);
  }
}

/** The newer of two bookmarks of one database (they sort by age as strings), or whichever there is. */
export function newerBookmark(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}

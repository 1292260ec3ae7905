import { and, asc, count, eq, inArray, lt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { isoNow } from "../clock";
import { type Db } from "../db/client";
import { accounts, deadLetters, imports, loginLinks, mindErasures, mindKeys, mindMoves, minds, oauthGrants, sessions, telegramChats } from "../db/schema";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { mindMoving, notFound } from "../errors";
import { farewellDueAt } from "../events/farewell";
import { afterWrite } from "../memory/outbox";
import { forgetSessionObjects } from "../sessions/objects";
import { changingMind, mindRowUpdate } from "../tenancy/mind-rows";
import { accountUnused } from "../tenancy/minds";
import { isMoveRunning } from "./move/move";
import { countMindRows, DEFAULT_ROW_BOUNDS, eraseSomeMindRows, MIND_TABLES, OUTBOUND_TABLES } from "./move/shard-rows";

// Erasing a mind spans two databases when its data lives on a shard other than the directory,
// so it is a sequence of steps that are each safe to repeat. The directory marks the mind first
// (from then on it answers as missing everywhere), its rows on its shard are fenced (they take no
// new inserts: the database refuses them in the write's own transaction) and only then counted,
// so the receipt holds every write that was acknowledged. Then, in bounded slices each resuming
// where the last stopped (`eraseSlice`), the state of its sessions' objects is dropped as their
// rows go, its vectors are removed, its rows are erased on its shard, its webhooks once they were
// told (the mind.erased event written with the fence, src/events/farewell.ts), and the
// directory's row goes last. The erasure record stays: asking again finishes an interrupted erasure and answers
// what was erased. A request marks the mind (`beginErasure`) and the mind's operations object runs the
// slices (mind-operations.ts), a bounded number per invocation, retrying them; the retention job hands
// any erasure left behind back to the object.

/** An erasure untouched this long is taken to be interrupted, and the retention job finishes it. */
export const ERASURE_STALE_MS = 10 * 60_000;
/** Finished erasures are remembered this long, as the answer to asking again. */
export const ERASURE_KEPT_MS = 30 * 24 * 60 * 60_000;

/**
 * Erases the mind and everything it owns, on its shard and in the directory, with its sessions'
 * objects' state and its vectors; answers how many rows of each kind it held. Asked again for a
 * mind whose erasure failed halfway, it finishes the erasure; for one already erased, it answers
 * the same counts. All in the caller; the fronts use `eraseMind` (mind-operations.ts), whose second
 * half runs in the mind's operations object.
 */
export async function deleteMind(deps: Pick<Deps, "directory" | "shards" | "clock" | "sessionObjects" | "semantic">, accountId: string, mindId: string): Promise<Record<string, number>> {
  const erasure = await beginErasure(deps, accountId, mindId);
  // In the caller, the webhooks do not wait for their mind.erased to be delivered.
  if (erasure.finishedAt === null) while ((await eraseSlice(deps, erasure, { farewell: false })) !== false);
  return erasure.counts;
}

/**
 * The first steps of erasing the mind: marks it erasing and records the erasure in one directory
 * transaction (404 for no such mind, 503 while it moves), then fences its rows and counts them
 * (`countErasure`); answers the erasure, which may be finished already (asked again). The rest
 * is `eraseSlice`, safe to repeat.
 */
export async function beginErasure(deps: Pick<Deps, "directory" | "shards" | "clock"> & Partial<Pick<Deps, "queue" | "defer">>, accountId: string, mindId: string): Promise<Erasure> {
  const directory = deps.directory;
  const row = await directory.select().from(minds).where(and(eq(minds.id, mindId), eq(minds.accountId, accountId))).get();
  if (row && row.erasingSince === null) {
    // Until a move has erased the copy it left, the mind is not erased (its record would stop the move).
    const move = await directory.select({ state: mindMoves.state }).from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
    if (row.movingTo !== null || (move && isMoveRunning(move.state))) throw mindMoving();
    await markErasing(deps, accountId, mindId);
  }
  const erasure = await directory.select().from(mindErasures).where(and(eq(mindErasures.mindId, mindId), eq(mindErasures.accountId, accountId))).get();
  if (!erasure) throw row ? mindMoving() : notFound("mind");
  return countErasure(deps, erasure);
}

export type Erasure = typeof mindErasures.$inferSelect;

/**
 * Marks the mind erasing and records the erasure, its counts not taken yet, in one directory
 * transaction: from then on every lookup answers it as missing. On DB the directory's row is
 * also the data's, so its rows stop taking inserts in the same transaction.
 */
async function markErasing(deps: Pick<Deps, "directory" | "clock">, accountId: string, mindId: string): Promise<void> {
  const d1 = deps.directory.$client;
  const now = isoNow(deps.clock);
  const mark = () => d1.batch([
    d1.prepare(
      `update minds set erasing_since = ?3, writes = case when shard = 'DB' then 'erasing' else writes end
       where id = ?1 and account_id = ?2 and erasing_since is null and moving_to is null`,
    ).bind(mindId, accountId, now),
    d1.prepare(
      `insert into mind_erasures (mind_id, account_id, shard, counts, started_at)
       select ?1, ?2, shard, '{}', ?3 from minds where id = ?1 and erasing_since = ?3
       on conflict (mind_id) do nothing`,
    ).bind(mindId, accountId, now),
  ]);
  await changingMind(mindId, mark);
}

/** Counts are taken once the mind is fenced; a recorded erasure holds `{}` until then. */
const isCounted = (counts: Record<string, number>) => "minds" in counts;

/**
 * Fences the mind's rows on its shard (the database refuses every insert from then on, in the
 * write's own transaction), then counts what the mind holds and records it once: a write that
 * was acknowledged landed before the fence and is in the receipt, a later one is refused. A
 * write past its lookup may land between the directory's mark and this fence; it is counted.
 */
async function countErasure(deps: Pick<Deps, "directory" | "shards" | "clock"> & Partial<Pick<Deps, "queue" | "defer">>, erasure: Erasure): Promise<Erasure> {
  const { mindId, shard } = erasure;
  const shardDb = deps.shards.db(shard);
  if (erasure.finishedAt === null) await fenceAndTell(deps, erasure);
  if (isCounted(erasure.counts)) return erasure;
  const directory = deps.directory;
  const data = await countMindRows(shardDb, mindId);
  const importsHeld = await shardDb.select({ n: count() }).from(imports).where(eq(imports.mindId, mindId));
  const [keys, links, chats, grants, dead] = await directory.batch([
    directory.select({ n: count() }).from(mindKeys).where(eq(mindKeys.mindId, mindId)),
    directory.select({ n: count() }).from(loginLinks).where(eq(loginLinks.mindId, mindId)),
    directory.select({ n: count() }).from(telegramChats).where(eq(telegramChats.mindId, mindId)),
    directory.select({ n: count() }).from(oauthGrants).where(eq(oauthGrants.mindId, mindId)),
    directory.select({ n: count() }).from(deadLetters).where(eq(deadLetters.mindId, mindId)),
  ]);
  const n = (rows: { n: number }[]) => rows[0]?.n ?? 0;
  const counts = {
    minds: 1,
    ...data,
    imports: n(importsHeld),
    mind_keys: n(keys),
    login_links: n(links),
    telegram_chats: n(chats),
    oauth_grants: n(grants),
    ...(n(dead) > 0 && { dead_letters: n(dead) }),
  };
  // Two requests may count at once: the first recorded stands, and both answer it.
  const [, recorded] = await directory.batch([
    directory.update(mindErasures).set({ counts }).where(and(eq(mindErasures.mindId, mindId), sql`${mindErasures.counts} = '{}'`)),
    directory.select().from(mindErasures).where(eq(mindErasures.mindId, mindId)),
  ]);
  return recorded[0] ?? erasure;
}

/**
 * Fences the mind's rows on a shard other than the directory (on DB its mark did), and writes the
 * mind's mind.erased event in the same batch (once: asked again, it is there), through the
 * after-write seam, which wakes its delivery.
 */
async function fenceAndTell(deps: Pick<Deps, "directory" | "shards" | "clock"> & Partial<Pick<Deps, "queue" | "defer">>, erasure: Erasure): Promise<void> {
  const { mindId, shard } = erasure;
  const shardDb = deps.shards.db(shard);
  const after = afterWrite({ ...deps, shard: shardDb, semantic: null, mind: { id: mindId, shard } }, { row: "mind", what: "erased", ids: [mindId] });
  const fence = shard !== DIRECTORY ? [mindRowUpdate(shardDb, mindId, { writes: "erasing" })] : [];
  const statements = [...fence, ...after.statements];
  if (statements.length > 0) await shardDb.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  after.landed();
}

/**
 * What one slice of an erasure touches at most: a page of sessions (one object call each, their
 * messages a bounded statement at a time), a page of vectors, or one page of rows. A slice is a
 * handful of D1 statements and at most `sessions` object calls, whatever the mind's size.
 */
export const ERASE_SLICE = { sessions: 20, messages: 500, vectors: 100, rows: 500 } as const;

/**
 * One bounded step of the erasure after its mark; answers whether work is left. Each step deletes
 * what it has done, so the next slice (in this invocation or the next) goes on where it stopped,
 * never from the first page: the mind's sessions (their objects forgotten as their rows go), its
 * vectors, its rows table by table, then the directory's row last.
 */
export async function eraseSlice(
  deps: Pick<Deps, "directory" | "shards" | "clock" | "sessionObjects" | "semantic">,
  marked: Erasure,
  options: { farewell: boolean } = { farewell: true },
): Promise<boolean | { at: number }> {
  // An erasure interrupted before its counts were taken takes them first, before anything goes.
  const erasure = isCounted(marked.counts) ? marked : await countErasure(deps, marked);
  const { mindId } = erasure;
  const db = deps.shards.db(erasure.shard);
  const bounds = { ...DEFAULT_ROW_BOUNDS, rows: ERASE_SLICE.rows };
  if (await forgetSomeSessions(deps, db, mindId)) return true;
  if (await forgetSomeVectors(deps, db, mindId)) return true;
  if (!(await eraseSomeMindRows(db, mindId, bounds, 1, DATA_TABLES)).done) return true;
  // The webhooks go last, once they had the mind's mind.erased (or the wait for it is over).
  const farewell = options.farewell ? await farewellDueAt(db, mindId, erasure.startedAt, deps.clock.now()) : null;
  if (farewell !== null) return { at: farewell };
  if (!(await eraseSomeMindRows(db, mindId, bounds, 1, OUTBOUND_TABLES)).done) return true;
  await finishErasure(deps, erasure);
  return false;
}

/** The mind's rows but its events and webhooks. */
const DATA_TABLES = MIND_TABLES.filter((table) => !OUTBOUND_TABLES.includes(table));

/** The last step: the mind's imports and rows on its shard, then the directory's row. */
async function finishErasure(deps: Pick<Deps, "directory" | "shards" | "clock">, erasure: Erasure): Promise<void> {
  const { mindId } = erasure;
  const db = deps.shards.db(erasure.shard);
  // The mind's imports, with whatever rows one had staged.
  await db.delete(imports).where(eq(imports.mindId, mindId));
  if (erasure.shard !== DIRECTORY) {
    await db.batch([db.delete(minds).where(eq(minds.id, mindId)), db.delete(accounts).where(accountUnused(db, erasure.accountId))]);
  }
  const directory = deps.directory;
  // Last: the directory's keys, grants, links and Telegram chats go with its row by ON DELETE CASCADE.
  await directory.batch([
    directory.delete(minds).where(eq(minds.id, mindId)),
    directory.delete(mindMoves).where(eq(mindMoves.mindId, mindId)),
    // The background work that failed for it names it too.
    directory.delete(deadLetters).where(eq(deadLetters.mindId, mindId)),
    directory.update(mindErasures).set({ finishedAt: isoNow(deps.clock) }).where(eq(mindErasures.mindId, mindId)),
  ]);
}

/**
 * A page of the mind's sessions: their messages go a bounded statement at a time; once a page
 * has none left, its objects' stored state and alarms are forgotten and its rows deleted.
 * Answers whether it did anything (false: no session is left).
 */
async function forgetSomeSessions(deps: Pick<Deps, "sessionObjects">, db: Db, mindId: string): Promise<boolean> {
  const page = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.mindId, mindId)).orderBy(asc(sessions.id)).limit(ERASE_SLICE.sessions);
  if (page.length === 0) return false;
  const ids = page.map((s) => s.id);
  const gone = await db.$client
    .prepare(
      `delete from messages where rowid in (select rowid from messages where mind_id = ? and session_id in (${ids.map(() => "?").join(", ")}) limit ?) returning 1 as one`,
    )
    .bind(mindId, ...ids, ERASE_SLICE.messages)
    .all();
  if (gone.results.length === ERASE_SLICE.messages) return true;
  await forgetSessionObjects(deps.sessionObjects, ids);
  await db.delete(sessions).where(and(eq(sessions.mindId, mindId), inArray(sessions.id, ids)));
  return true;
}

/** A page of the mind's vectors, then their records; answers whether there was one. */
async function forgetSomeVectors(deps: Pick<Deps, "semantic">, db: Db, mindId: string): Promise<boolean> {
  if (!deps.semantic) return false;
  const d1 = db.$client;
  const { results: page } = await d1
    .prepare("select rowid as at, row_id as rowId from embeddings where mind_id = ? order by rowid limit ?")
    .bind(mindId, ERASE_SLICE.vectors)
    .all<{ at: number; rowId: string }>();
  if (page.length === 0) return false;
  await deps.semantic.index.remove(mindId, page.map((e) => e.rowId));
  // One statement for the page's records: they are the mind's first by rowid, and the fence lets none in.
  await d1.prepare("delete from embeddings where mind_id = ? and rowid <= ?").bind(mindId, page.at(-1)!.at).run();
  return true;
}

/** The mind's recorded erasure, or null. */
export async function readErasure(deps: Pick<Deps, "directory">, mindId: string): Promise<Erasure | null> {
  return (await deps.directory.select().from(mindErasures).where(eq(mindErasures.mindId, mindId)).get()) ?? null;
}

/** Forgets finished erasures past keeping; answers how many. */
export async function forgetFinishedErasures(deps: Pick<Deps, "directory">, now: Date): Promise<number> {
  const gone = await deps.directory
    .delete(mindErasures)
    .where(lt(mindErasures.finishedAt, new Date(now.getTime() - ERASURE_KEPT_MS).toISOString()))
    .returning({ mindId: mindErasures.mindId });
  return gone.length;
}

import { and, eq, inArray, notExists, sql } from "drizzle-orm";
import { isoNow } from "../../clock";
import { type Db, everyShard } from "../../db/client";
import { accounts, type MoveState, mindMoves, minds, shardMinds } from "../../db/schema";
import { DIRECTORY } from "../../db/shards";
import type { Deps } from "../../deps";
import { AppError, conflict, invalid, notFound } from "../../errors";
import { DIRECTORY_TTL_MS } from "../../tenancy/directory-cache";
import { changingMind, mindRowUpdate } from "../../tenancy/mind-rows";
import { accountUnused, writeShardCopy } from "../../tenancy/minds";
import { unfinishedImportOf } from "../import/imports";
import { copyNextPage, dropCopyCursors } from "./copy";
import { countMindRows, DEFAULT_ROW_BOUNDS, eraseMindRows, eraseSomeMindRows, MIND_TABLES, type MindTable, type RowBounds } from "./shard-rows";

// Moving a mind's data to another shard is an operation of small steps, each one bounded and safe to
// repeat; the directory's mind_moves row says which step is next. The mind is marked moving in
// the directory and its rows on the source are closed to writes (the database refuses them,
// 503 mind_moving); every table is copied page by page; the counts are compared; the directory
// switches to the target; the old copy stays closed while any isolate's cached directory entry
// may still send a request there (DIRECTORY_TTL_MS), so a stale entry meets a retryable 503 and
// never a write that would be lost; then the old copy is erased. Abandoned before the switch, the
// partial copy is erased and the source takes writes again. Reads go on from the old copy while it moves.

export interface MoveProgress {
  mind_id: string;
  from: string;
  to: string;
  state: MoveState;
  /** The last failure of a step (retried with a growing pause), or why the move was abandoned. */
  error: string | null;
  /** Failed steps in a row. */
  attempts: number;
  /** The mind's rows of each table on each side: the target fills up, then the source empties. */
  rows: { from: Record<MindTable, number>; to: Record<MindTable, number> };
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

const FINISHED: MoveState[] = ["done", "abandoned"];
/** Steps that may still be abandoned: nothing has switched yet. */
const UNDOABLE: MoveState[] = ["freezing", "preparing", "copying", "switching"];

export const isMoveRunning = (state: MoveState | null) => state !== null && !FINISHED.includes(state);

function shardDb(deps: Pick<Deps, "shards">, name: string): Db {
  const shard = everyShard(deps).find((s) => s.name === name);
  if (!shard) throw invalid(`no shard is named ${name}: the shards are ${everyShard(deps).map((s) => s.name).join(", ")}`);
  return shard.db;
}

/**
 * Starts moving a mind to shard `to`, or answers the move already under way there. The move's
 * steps are then driven by `advanceMove` (the mind's operations object runs them in the background).
 */
export async function startMove(deps: Pick<Deps, "directory" | "shards" | "clock">, mindId: string, to: string): Promise<MoveProgress> {
  shardDb(deps, to);
  const directory = deps.directory;
  const row = await directory.select().from(minds).where(eq(minds.id, mindId)).get();
  if (!row || row.erasingSince !== null) throw notFound("mind");
  const now = isoNow(deps.clock);
  if (row.shard === to && row.movingTo === null) return alreadyThere(deps, mindId, to, now);
  if (await unfinishedImportOf(shardDb(deps, row.shard), mindId, now).get()) throw importUnderWay();
  // Recorded and claimed in one transaction, only while the mind is where it was read and nothing else moves it.
  const d1 = directory.$client;
  const [, claimed] = await changingMind(mindId, () => d1.batch([
    d1.prepare(
      `insert into mind_moves (mind_id, from_shard, to_shard, state, error, attempts, started_at, updated_at, finished_at)
       select ?1, ?2, ?3, 'freezing', null, 0, ?4, ?4, null
       where exists (select 1 from minds where id = ?1 and shard = ?2 and moving_to is null and erasing_since is null)
       on conflict (mind_id) do update set from_shard = excluded.from_shard, to_shard = excluded.to_shard, state = 'freezing',
         error = null, attempts = 0, started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = null, switched_at = null
       where mind_moves.state in ('done', 'abandoned')`,
    ).bind(mindId, row.shard, to, now),
    d1.prepare(
      `update minds set moving_to = ?3 where id = ?1 and shard = ?2 and moving_to is null and erasing_since is null
       and exists (select 1 from mind_moves where mind_id = ?1 and to_shard = ?3 and state = 'freezing' and started_at = ?4) returning id`,
    ).bind(mindId, row.shard, to, now),
  ]));
  if (claimed!.results.length === 0) {
    const move = await directory.select().from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
    if (!move || !isMoveRunning(move.state)) throw conflict("the mind changed shard meanwhile: try again");
    if (move.toShard !== to) throw conflict(`the mind is moving to ${move.toShard}`);
  }
  return (await moveProgress(deps, mindId))!;
}

const importUnderWay = () => conflict("an import into the mind is under way: move it when the import has ended");

/**
 * A mind already on the shard asked for: nothing to copy, but the request is recorded as a
 * finished move, so GET /shards/moves/:id answers it. A move that already switched here and is
 * still erasing its old copy is answered as it stands.
 */
async function alreadyThere(deps: Pick<Deps, "directory" | "shards">, mindId: string, to: string, now: string): Promise<MoveProgress> {
  await deps.directory.$client
    .prepare(
      `insert into mind_moves (mind_id, from_shard, to_shard, state, error, attempts, started_at, updated_at, finished_at)
       values (?1, ?2, ?2, 'done', null, 0, ?3, ?3, ?3)
       on conflict (mind_id) do update set from_shard = excluded.from_shard, to_shard = excluded.to_shard, state = 'done',
         error = null, attempts = 0, started_at = excluded.started_at, updated_at = excluded.updated_at, finished_at = excluded.finished_at,
         switched_at = null
       where mind_moves.state in ('done', 'abandoned')`,
    )
    .bind(mindId, to, now)
    .run();
  return (await moveProgress(deps, mindId))!;
}

/** Where the mind's latest move stands, with its rows on each side; null if it never moved. */
export async function moveProgress(deps: Pick<Deps, "directory" | "shards">, mindId: string): Promise<MoveProgress | null> {
  const move = await deps.directory.select().from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
  if (!move) return null;
  const [from, to] = [await countMindRows(shardDb(deps, move.fromShard), mindId), await countMindRows(shardDb(deps, move.toShard), mindId)];
  return {
    mind_id: mindId,
    from: move.fromShard,
    to: move.toShard,
    state: move.state,
    error: move.error,
    attempts: move.attempts,
    rows: { from, to },
    started_at: move.startedAt,
    updated_at: move.updatedAt,
    finished_at: move.finishedAt,
  };
}

/**
 * Abandons a move that has not switched yet: its next steps erase the partial copy and open the
 * source to writes again. A move past its switch is finished instead (409).
 */
export async function abandonMove(deps: Pick<Deps, "directory" | "shards" | "clock">, mindId: string, reason = "abandoned by the operator"): Promise<MoveProgress> {
  const directory = deps.directory;
  const move = await directory.select().from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
  if (!move) throw notFound("move");
  if (move.state === "undoing" || move.state === "abandoned") return (await moveProgress(deps, mindId))!;
  const [changed] = await directory
    .update(mindMoves)
    .set({ state: "undoing", error: reason, attempts: 0, updatedAt: isoNow(deps.clock) })
    .where(and(eq(mindMoves.mindId, mindId), inArray(mindMoves.state, UNDOABLE)))
    .returning({ state: mindMoves.state });
  if (!changed) throw conflict(`the move is ${move.state}: past its switch it can only be finished`);
  return (await moveProgress(deps, mindId))!;
}

/**
 * Runs the next bounded step of the mind's move and answers the state it leaves; null when no
 * move is recorded. Every step is safe to repeat, so a step that failed anywhere is run again.
 */
export async function advanceMove(deps: Pick<Deps, "directory" | "shards" | "clock">, mindId: string, bounds: RowBounds = DEFAULT_ROW_BOUNDS): Promise<MoveState | null> {
  const directory = deps.directory;
  const move = await directory.select().from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
  if (!move || !isMoveRunning(move.state)) return move?.state ?? null;
  const source = shardDb(deps, move.fromShard);
  const target = shardDb(deps, move.toShard);
  const next = (state: MoveState) => setState(deps, mindId, move.state, state);
  switch (move.state) {
    case "freezing": {
      // Closed only while no import writes into the mind; an import starting later sees it closed.
      const frozen = await mindRowUpdate(source, mindId, { writes: "moving" }, notExists(unfinishedImportOf(source, mindId, isoNow(deps.clock)))).returning({ id: minds.id });
      if (frozen.length === 0) {
        await abandonMove(deps, mindId, importUnderWay().message);
        return "undoing";
      }
      return next("preparing");
    }
    case "preparing": {
      // Whatever an earlier attempt left on the target is erased; the copy starts from nothing.
      await eraseMindRows(target, mindId, bounds);
      await dropCopyCursors(target, mindId);
      const row = (await directory.select().from(minds).where(eq(minds.id, mindId)).get())!;
      if (move.toShard === DIRECTORY) await mindRowUpdate(target, mindId, { writes: "open" });
      else await writeShardCopy(deps, { ...row, shard: move.toShard }, { replace: true });
      return next("copying");
    }
    case "copying":
      return (await copyNextPage(source, target, mindId, bounds)) ? "copying" : next("switching");
    case "switching":
      return switchShard(deps, mindId, move.fromShard, move.toShard, source, target);
    case "switched":
      return fenceEndsAt(move) > deps.clock.now().getTime() ? "switched" : next("erasing");
    case "erasing": {
      // Every cache names the target now: the old copy takes the updates and deletes of its erasure.
      await mindRowUpdate(source, mindId, { writes: "erasing" }, eq(minds.writes, "moving"));
      if (!(await eraseSomeMindRows(source, mindId, bounds, 5)).done) return "erasing";
      await dropCopyCursors(target, mindId);
      await dropShardRow(source, move.fromShard, mindId);
      return finish(deps, mindId, "erasing", "done");
    }
    case "undoing": {
      if (!(await eraseSomeMindRows(target, mindId, bounds, 5)).done) return "undoing";
      await dropCopyCursors(target, mindId);
      await dropShardRow(target, move.toShard, mindId);
      await mindRowUpdate(source, mindId, { writes: "open" });
      await changingMind(mindId, () => mindRowUpdate(directory, mindId, { movingTo: null }, eq(minds.movingTo, move.toShard)));
      return finish(deps, mindId, "undoing", "abandoned");
    }
  }
  return move.state;
}

/**
 * When the old copy may open to its erasure (ms since the epoch, by the deps' clock): once no
 * isolate trusts a directory entry read before the switch. A move switched before this was
 * recorded has no time, and goes on at once.
 */
const fenceEndsAt = (move: { switchedAt: string | null }) => (move.switchedAt === null ? 0 : Date.parse(move.switchedAt) + DIRECTORY_TTL_MS);

/** When the mind's move may take its next step, if it waits for the directory cache's bound after its switch; null otherwise. */
export async function moveWaitsUntil(deps: Pick<Deps, "directory" | "clock">, mindId: string): Promise<number | null> {
  const move = await deps.directory.select().from(mindMoves).where(eq(mindMoves.mindId, mindId)).get();
  if (move?.state !== "switched") return null;
  const at = fenceEndsAt(move);
  return at > deps.clock.now().getTime() ? at : null;
}

/** The counts compared table by table; the directory then names the target, in the same transaction as the move's next state. */
async function switchShard(deps: Pick<Deps, "directory" | "clock">, mindId: string, from: string, to: string, source: Db, target: Db): Promise<MoveState> {
  const [had, has] = [await countMindRows(source, mindId), await countMindRows(target, mindId)];
  const differs = MIND_TABLES.find((name) => had[name] !== has[name]);
  if (differs) {
    await deps.directory
      .update(mindMoves)
      .set({ state: "undoing", error: `conflict: the copy of ${differs} held ${has[differs]} rows, the source ${had[differs]}`, updatedAt: isoNow(deps.clock) })
      .where(and(eq(mindMoves.mindId, mindId), eq(mindMoves.state, "switching")));
    return "undoing";
  }
  const directory = deps.directory;
  // The directory's own row stays closed as the old copy while it is one (the erasing step opens it).
  const writes = to === DIRECTORY ? "open" : from === DIRECTORY ? "moving" : "elsewhere";
  const now = isoNow(deps.clock);
  await changingMind(mindId, () => directory.batch([
    directory
      .update(mindMoves)
      .set({ state: "switched", switchedAt: now, updatedAt: now })
      .where(and(eq(mindMoves.mindId, mindId), eq(mindMoves.state, "switching"))),
    mindRowUpdate(directory, mindId, { shard: to, movingTo: null, writes }, eq(minds.movingTo, to), sql`exists (select 1 from mind_moves where mind_id = ${mindId} and state = 'switched')`),
  ]));
  return "switched";
}

/** A shard's copy of the mind's row (and its account's bare row, if no other mind uses it) goes; the directory's row stays, sending elsewhere. */
async function dropShardRow(db: Db, shard: string, mindId: string): Promise<void> {
  if (shard === DIRECTORY) {
    await mindRowUpdate(db, mindId, { writes: "elsewhere" });
    return;
  }
  const row = await db.select({ accountId: minds.accountId }).from(minds).where(eq(minds.id, mindId)).get();
  if (!row) return;
  await db.batch([db.delete(minds).where(eq(minds.id, mindId)), db.delete(accounts).where(accountUnused(db, row.accountId))]);
}

async function setState(deps: Pick<Deps, "directory" | "clock">, mindId: string, from: MoveState, to: MoveState): Promise<MoveState> {
  const [changed] = await deps.directory
    .update(mindMoves)
    .set({ state: to, attempts: 0, updatedAt: isoNow(deps.clock) })
    .where(and(eq(mindMoves.mindId, mindId), eq(mindMoves.state, from)))
    .returning({ state: mindMoves.state });
  // Abandoned meanwhile: the abandonment stands.
  return changed ? to : "undoing";
}

async function finish(deps: Pick<Deps, "directory" | "clock">, mindId: string, from: MoveState, to: MoveState): Promise<MoveState> {
  const now = isoNow(deps.clock);
  await deps.directory
    .update(mindMoves)
    .set({ state: to, attempts: 0, updatedAt: now, finishedAt: now })
    .where(and(eq(mindMoves.mindId, mindId), eq(mindMoves.state, from)));
  return to;
}

/**
 * Records a step's failure (a code and a safe message, never SQL) with the failed steps in a row
 * as the operations object counts them, so GET /shards/moves/:id shows them.
 */
export async function recordMoveFailure(deps: Pick<Deps, "directory" | "clock">, mindId: string, error: unknown, attempts: number): Promise<void> {
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : "internal: a step of the move failed; it is retried";
  await deps.directory.update(mindMoves).set({ error: message, attempts, updatedAt: isoNow(deps.clock) }).where(eq(mindMoves.mindId, mindId));
}

/** Every shard with how many minds live on it and how many are moving to it. */
export async function listShards(deps: Pick<Deps, "directory" | "shards">): Promise<{ name: string; minds: number; incoming: number }[]> {
  const directory = deps.directory;
  const [held, incoming] = await directory.batch([
    directory.select().from(shardMinds),
    directory.select({ shard: mindMoves.toShard, mindId: mindMoves.mindId }).from(mindMoves).where(inArray(mindMoves.state, UNDOABLE)),
  ]);
  return everyShard(deps).map(({ name }) => ({
    name,
    minds: held.find((r) => r.shard === name)?.minds ?? 0,
    incoming: incoming.filter((r) => r.shard === name).length,
  }));
}

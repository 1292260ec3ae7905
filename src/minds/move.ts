import { and, count, eq, isNotNull, isNull, or } from "drizzle-orm";
import { directoryOf, everyShard, type Db } from "../db/client";
import { accounts, minds, type MindRow } from "../db/schema";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { conflict, invalid, notFound } from "../errors";
import { copyMindRows } from "./copy-mind";
import { accountUnused, writeShardCopy } from "./minds";
import { countMindRows, DEFAULT_ROW_BOUNDS, eraseMindRows, MIND_TABLES, type MindTable, type RowBounds } from "./shard-rows";

export interface MoveReport {
  mind_id: string;
  from: string;
  to: string;
  /** Rows of each table now on the target shard (the same as the source held). */
  copied: Record<MindTable, number>;
  /** Rows deleted from the shard the mind left (and from any shard a failed move left rows on). */
  erased: Record<string, number>;
}

/**
 * Moves a mind's data to another shard: the mind is marked moving in the directory and its
 * rows on the source are closed to writes (the database refuses them, 503 mind_moving), every
 * table is copied in bounded batches, the counts are compared, the directory switches to the
 * target, and the old copy is erased. A failure before the switch erases the partial copy and
 * opens the source again; after it, the old copy's erasure is finished. Should the recovery
 * fail too, calling the move again resumes it. Reads go on from the old copy while it moves.
 */
export async function moveMind(deps: Deps, mindId: string, to: string, bounds: RowBounds = DEFAULT_ROW_BOUNDS): Promise<MoveReport> {
  const directory = directoryOf(deps);
  const shardDb = (name: string) => everyShard(deps).find((s) => s.name === name)?.db;
  const target = shardDb(to);
  if (!target) throw invalid(`no shard is named ${to}: the shards are ${everyShard(deps).map((s) => s.name).join(", ")}`);
  const row = await directory.select().from(minds).where(eq(minds.id, mindId)).get();
  if (!row) throw notFound("mind");
  if (row.movingTo !== null && row.movingTo !== to) throw conflict(`the mind is moving to ${row.movingTo}`);
  const from = row.shard;
  const source = shardDb(from)!;
  if (from === to) {
    // Already there: only what an interrupted move left elsewhere is erased.
    return { mind_id: mindId, from, to, copied: await countMindRows(target, mindId), erased: await eraseLeftovers(deps, row) };
  }

  let claimed = false;
  try {
    const claim = await directory
      .update(minds)
      .set({ movingTo: to })
      .where(and(eq(minds.id, mindId), eq(minds.shard, from), or(isNull(minds.movingTo), eq(minds.movingTo, to))))
      .returning({ id: minds.id });
    if (claim.length === 0) throw conflict("the mind changed shard meanwhile: try again");
    claimed = true;
    await source.update(minds).set({ writes: "moving" }).where(eq(minds.id, mindId));
    // A partial copy left by an interrupted attempt is started afresh.
    await eraseMindRows(target, mindId, bounds);
    if (to === DIRECTORY) await target.update(minds).set({ writes: "open" }).where(eq(minds.id, mindId));
    else await writeShardCopy(deps, { ...row, shard: to }, { replace: true });
    await copyMindRows(source, target, mindId, bounds);
    const copied = await verifyCopy(source, target, mindId);
    await directory
      .update(minds)
      .set({ shard: to, movingTo: null, writes: to === DIRECTORY ? "open" : from === DIRECTORY ? "erasing" : "elsewhere" })
      .where(and(eq(minds.id, mindId), eq(minds.movingTo, to)));
    return { mind_id: mindId, from, to, copied, erased: await eraseOldCopy(deps, source, from, row) };
  } catch (error) {
    if (!claimed && !(await isMarkedMoving(directory, mindId, to))) throw error;
    const landed = await recover(deps, row, to).catch((recoveryError: unknown) => {
      console.error("a failed move could not be undone; moving it again resumes it", mindId, recoveryError);
      return null;
    });
    if (landed) return landed;
    throw error;
  }
}

/** The same rows on both sides, table by table, or a conflict naming the first difference. */
async function verifyCopy(source: Db, target: Db, mindId: string): Promise<Record<MindTable, number>> {
  const [had, has] = [await countMindRows(source, mindId), await countMindRows(target, mindId)];
  for (const name of MIND_TABLES) {
    if (had[name] !== has[name]) throw conflict(`the copy of ${name} holds ${has[name]} rows, the source ${had[name]}: the move was undone`);
  }
  return has;
}

const isMarkedMoving = async (directory: Db, mindId: string, to: string) =>
  (await directory.select({ movingTo: minds.movingTo }).from(minds).where(eq(minds.id, mindId)).get())?.movingTo === to;

/**
 * After a failure: if the directory already names the target, the move happened and the old
 * copy's erasure is finished (the move's report is returned); otherwise the target's partial
 * copy is erased and the source takes writes again (null).
 */
async function recover(deps: Deps, row: MindRow, to: string): Promise<MoveReport | null> {
  const directory = directoryOf(deps);
  const now = await directory.select().from(minds).where(eq(minds.id, row.id)).get();
  if (!now) return null;
  const shard = (name: string) => everyShard(deps).find((s) => s.name === name)!.db;
  if (now.shard === to) {
    const erased = await eraseOldCopy(deps, shard(row.shard), row.shard, row);
    return { mind_id: row.id, from: row.shard, to, copied: await countMindRows(shard(to), row.id), erased };
  }
  const target = shard(to);
  await eraseMindRows(target, row.id, DEFAULT_ROW_BOUNDS);
  if (to === DIRECTORY) await target.update(minds).set({ writes: "elsewhere" }).where(eq(minds.id, row.id));
  else await target.batch([target.delete(minds).where(eq(minds.id, row.id)), target.delete(accounts).where(accountUnused(target, row.accountId))]);
  await shard(row.shard).update(minds).set({ writes: "open" }).where(eq(minds.id, row.id));
  await directory.update(minds).set({ movingTo: null }).where(eq(minds.id, row.id));
  return null;
}

/** Erases the mind's rows from the shard it left: writes are refused there from now on. */
async function eraseOldCopy(deps: Deps, source: Db, from: string, row: MindRow): Promise<Record<string, number>> {
  await source.update(minds).set({ writes: "erasing" }).where(eq(minds.id, row.id));
  const erased = await eraseMindRows(source, row.id, DEFAULT_ROW_BOUNDS);
  if (from === DIRECTORY) await source.update(minds).set({ writes: "elsewhere" }).where(eq(minds.id, row.id));
  else await source.batch([source.delete(minds).where(eq(minds.id, row.id)), source.delete(accounts).where(accountUnused(source, row.accountId))]);
  return erased;
}

/** Rows of the mind on any shard but its own, left by an interrupted move: erased. */
async function eraseLeftovers(deps: Deps, row: MindRow): Promise<Record<string, number>> {
  const erased: Record<string, number> = {};
  for (const { name, db } of everyShard(deps)) {
    if (name === row.shard) continue;
    const present = await db.select({ writes: minds.writes }).from(minds).where(eq(minds.id, row.id)).get();
    if (!present) continue;
    for (const [table, n] of Object.entries(await eraseOldCopy(deps, db, name, row))) erased[table] = (erased[table] ?? 0) + n;
  }
  return erased;
}

/** Every shard with how many minds live on it and how many are moving to it. */
export async function listShards(deps: Deps): Promise<{ name: string; minds: number; incoming: number }[]> {
  const directory = directoryOf(deps);
  const [held, incoming] = await directory.batch([
    directory.select({ shard: minds.shard, n: count() }).from(minds).groupBy(minds.shard),
    directory.select({ shard: minds.movingTo, n: count() }).from(minds).where(isNotNull(minds.movingTo)).groupBy(minds.movingTo),
  ]);
  const of = (rows: { shard: string | null; n: number }[], name: string) => rows.find((r) => r.shard === name)?.n ?? 0;
  return everyShard(deps).map(({ name }) => ({ name, minds: of(held, name), incoming: of(incoming, name) }));
}

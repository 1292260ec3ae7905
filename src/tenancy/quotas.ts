import { and, eq, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { minds, mindUsage, quotaGuard } from "../db/schema";
import type { InShard } from "../deps";
import { AppError, notFound } from "../errors";
import { type MindSettings, resolveSettings } from "./settings";

/** What a write adds to a mind: new memories, new notes, bytes of stored text. */
export interface QuotaNeed {
  memories?: number;
  notes?: number;
  bytes?: number;
}

export interface MindUsage {
  memories: number;
  notes: number;
  bytes: number;
}

/** Bytes a text takes as stored (UTF-8), as the usage triggers count them. */
export const storedBytes = (...texts: (string | null | undefined)[]) =>
  texts.reduce((n, text) => n + (text ? new TextEncoder().encode(text).length : 0), 0);

/** A quota refusal naming the setting, its value and what the mind holds. */
export const quotaExceeded = (setting: keyof MindSettings, limit: number, holds: number) =>
  new AppError("quota_exceeded", `quota reached: ${setting} is ${limit} and the mind holds ${holds}; delete some, or raise ${setting} in the mind's settings`);

/** Throws `quota_exceeded` when the usage plus the need passes a limit of the settings. */
export function checkQuota(settings: MindSettings, usage: MindUsage, need: QuotaNeed): void {
  if (need.memories && usage.memories + need.memories > settings.max_memories) {
    throw quotaExceeded("max_memories", settings.max_memories, usage.memories);
  }
  if (need.notes && usage.notes + need.notes > settings.max_notes) throw quotaExceeded("max_notes", settings.max_notes, usage.notes);
  if (need.bytes && usage.bytes + need.bytes > settings.max_bytes) throw quotaExceeded("max_bytes", settings.max_bytes, usage.bytes);
}

/** The mind a write goes to, and its database (which holds the quotas the write is checked against). */
export interface QuotaMind {
  shard: Db;
  mind: { id: string };
}

/** The memories max_memories counts: every row but the statements a later one replaced (migrations/0026). */
const currentMemories = sql<number>`${mindUsage.memories} - ${mindUsage.replaced}`;

/**
 * The settings stored on the mind's shard and what it holds, for a writer without the mind's
 * context (an import, whose archive brings settings of its own): one indexed read.
 */
export async function readUsage({ shard }: Pick<InShard, "shard">, mindId: string): Promise<QuotaReading> {
  const row = await shard
    .select({ settings: minds.settings, memories: currentMemories, notes: mindUsage.notes, bytes: mindUsage.bytes })
    .from(minds)
    .leftJoin(mindUsage, eq(mindUsage.mindId, minds.id))
    .where(eq(minds.id, mindId))
    .get();
  if (!row) throw notFound("mind");
  return {
    settings: resolveSettings(row.settings),
    usage: { memories: row.memories ?? 0, notes: row.notes ?? 0, bytes: row.bytes ?? 0 },
  };
}

/** What was read before a write: the limits it is checked against and what the mind held (its current memories). */
export interface QuotaReading {
  settings: MindSettings;
  usage: MindUsage;
}

/** Each quota's value when the stored settings lack it. */
const DEFAULTS = resolveSettings({});

/** A quota as the mind's row on its shard stores it, read in SQL by the statement that checks it. */
const storedLimit = (setting: "max_memories" | "max_notes" | "max_bytes") =>
  sql`coalesce(json_extract(${minds.settings}, ${`$.${setting}`}), ${DEFAULTS[setting]})`;

/**
 * The last statement of a write's batch: it fails the batch (CHECK constraint quota_exceeded,
 * migrations/0015) when, with the write, the mind holds more than a quota the write adds to
 * allows, so the quota is checked by the write itself, with no read before it, and a write that
 * raced another past the last free slot is rolled back whole. The quotas are those of the mind's
 * row on its shard as the batch reads it, not a cached copy: a change of settings (a PATCH, an
 * import's, an undone import's) holds for the very next write, whatever isolate sends it.
 * `added` says, in the batch, whether the write really added a memory (an update in place adds none).
 */
function guardStatement(shard: Db, mindId: string, need: QuotaNeed, added?: SQL): BatchItem<"sqlite"> {
  const passed = or(
    (need.memories ?? 0) > 0 ? and(sql`${currentMemories} > ${storedLimit("max_memories")}`, added) : undefined,
    (need.notes ?? 0) > 0 ? sql`${mindUsage.notes} > ${storedLimit("max_notes")}` : undefined,
    (need.bytes ?? 0) > 0 ? sql`${mindUsage.bytes} > ${storedLimit("max_bytes")}` : undefined,
  );
  return shard.insert(quotaGuard).select(
    shard
      .select({ ok: sql<number>`0`.as("ok") })
      .from(mindUsage)
      .innerJoin(minds, eq(minds.id, mindUsage.mindId))
      .where(and(eq(mindUsage.mindId, mindId), passed ?? sql`0`)),
  );
}

function isQuotaGuardFailure(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if (e.message.includes("quota_exceeded")) return true;
  return false;
}

/**
 * Runs `write`, which must put `guard` in the same D1 batch as its writes (after them): a write
 * that would take the mind past one of its quotas is rolled back by its own batch and refused
 * (403 quota_exceeded, the setting named). The limits are those stored on the mind's shard, read
 * by the guard itself; nothing is read before the write. `added` (in SQL, read by the guard) says
 * whether a memory was really added; `replaces`, asked only after a refusal, whether it already existed.
 */
export async function writeWithinQuota<T>(
  mindContext: QuotaMind,
  need: QuotaNeed,
  write: (guard: BatchItem<"sqlite">) => Promise<T>,
  added?: { inBatch: SQL; replaces: () => Promise<boolean> },
): Promise<T> {
  try {
    return await write(guardStatement(mindContext.shard, mindContext.mind.id, need, added?.inBatch));
  } catch (err) {
    if (!isQuotaGuardFailure(err)) throw err;
    const replaced = added !== undefined && (await added.replaces());
    const { settings, usage } = await readUsage(mindContext, mindContext.mind.id);
    checkQuota(settings, usage, replaced ? { ...need, memories: 0 } : need);
    throw new AppError("quota_exceeded", "quota reached by a write made at the same time; read the mind's usage and try again");
  }
}

/** writeWithinQuota for a writer without the mind's context (an import slice): the limits are those stored on its shard. */
export async function writeWithinStoredQuota<T>(
  deps: Pick<InShard, "shard">,
  mindId: string,
  need: QuotaNeed,
  write: (guard: BatchItem<"sqlite">) => Promise<T>,
): Promise<T> {
  const reading = await readUsage(deps, mindId);
  checkQuota(reading.settings, reading.usage, need);
  return writeWithinQuota({ shard: deps.shard, mind: { id: mindId } }, need, write);
}

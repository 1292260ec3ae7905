import { and, desc, eq, isNull, notExists, sql } from "drizzle-orm";
import { z } from "zod";
import { isoNow } from "../clock";
import { type Db, everyShard } from "../db/client";
import { accounts, type MindRow, minds, mindUsage, shardMinds } from "../db/schema";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { conflict, mindMoving, notFound } from "../errors";
import { newId } from "../ids";
import { changingMind, mindRowUpdate, setMindFields } from "./mind-rows";
import { type MindSettings, mindSettingsPatchSchema, resolveSettings } from "./settings";

export const LOCALES = ["en", "ru"] as const;
export type Locale = (typeof LOCALES)[number];

export interface Mind {
  id: string;
  name: string;
  locale: string;
  retention_hours: number | null;
  settings: MindSettings;
  created_at: string;
  updated_at: string;
  /** The database that holds the mind's data (a D1 binding name); never shown to users. */
  shard: string;
  /** The mind's data is being copied to another database: writes are refused meanwhile. */
  moving: boolean;
  /** The mind has webhooks: its writes wake their delivery (src/events/wake.ts). Never shown to users. */
  webhooks: boolean;
}

export interface MindInput {
  name: string;
  locale?: Locale;
  retention_hours?: number | null;
  settings?: Partial<MindSettings>;
}

/** The longest name a mind may have. */
export const MIND_NAME_MAX_CHARS = 100;

/** A mind's own fields as a create takes them, with their bounds; every front checks with these. */
export const mindInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(MIND_NAME_MAX_CHARS),
  locale: z.enum(LOCALES).optional(),
  retention_hours: z.number().int().min(1).max(24 * 365 * 10).nullable().optional(),
  settings: mindSettingsPatchSchema.optional(),
});

/** A change of a mind (PATCH /minds/:id, the settings page): any of its fields. */
export const mindPatchSchema = mindInputSchema.partial();

/** A directory row as the domain sees it. */
export const toMind = (row: MindRow): Mind => ({
  id: row.id,
  name: row.name,
  locale: row.locale,
  retention_hours: row.retentionHours,
  settings: resolveSettings(row.settings),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  shard: row.shard,
  moving: row.movingTo !== null,
  webhooks: row.webhooks,
});

/** Finds the account with this name, creating it when there is none. */
export async function ensureAccount(deps: Pick<Deps, "directory" | "clock">, name: string): Promise<{ id: string; created: boolean }> {
  const db = deps.directory;
  const { clock } = deps;
  const id = newId("acc");
  const inserted = await db
    .insert(accounts)
    .values({ id, name, locale: "en", createdAt: isoNow(clock) })
    .onConflictDoNothing({ target: accounts.name })
    .returning({ id: accounts.id });
  if (inserted[0]) return { id: inserted[0].id, created: true };
  const existing = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.name, name)).get();
  if (!existing) throw notFound("account");
  return { id: existing.id, created: false };
}

export async function accountExists(deps: Pick<Deps, "directory">, accountId: string): Promise<boolean> {
  const db = deps.directory;
  const row = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).get();
  return row !== undefined;
}

/** How many fresh ids a new mind tries before giving up: two taken in a row already means 2^-60 odds. */
export const MIND_ID_ATTEMPTS = 5;

/**
 * Creates a mind on the shard that holds the fewest minds. On a shard other than the directory
 * the shard gets its own copy of the mind's row (and a bare row of the account) first, so its
 * foreign keys hold; the directory's row then says where the data lives. A mind's search token
 * comes from the end of its id and is unique (migrations/0013): an id whose token is taken is
 * replaced by a fresh one, up to `MIND_ID_ATTEMPTS` times.
 */
export async function createMind(
  deps: Pick<Deps, "directory" | "shards" | "clock">,
  accountId: string,
  input: MindInput,
  options: { newMindId?: () => string } = {},
): Promise<Mind> {
  const newMindId = options.newMindId ?? (() => newId("mind"));
  const now = isoNow(deps.clock);
  const shard = await emptiestShard(deps);
  for (let attempt = 1; ; attempt++) {
    const row: MindRow = {
      id: newMindId(),
      accountId,
      name: input.name,
      locale: input.locale ?? "en",
      retentionHours: input.retention_hours ?? null,
      settings: resolveSettings(input.settings ?? {}),
      createdAt: now,
      updatedAt: now,
      shard,
      writes: "open",
      movingTo: null,
      erasingSince: null,
      webhooks: false,
    };
    try {
      await insertMind(deps, row);
      return toMind(row);
    } catch (error) {
      if (!isMindIdTaken(error)) throw error;
      if (attempt >= MIND_ID_ATTEMPTS) throw conflict(`no free mind id after ${MIND_ID_ATTEMPTS} attempts; try again`);
    }
  }
}

async function insertMind(deps: Pick<Deps, "directory" | "shards">, row: MindRow): Promise<void> {
  const db = deps.directory;
  if (row.shard === DIRECTORY) {
    await db.insert(minds).values(row);
    return;
  }
  await writeShardCopy(deps, row);
  try {
    await db.batch([
      db.insert(minds).values({ ...row, writes: "elsewhere" }),
      // The insert trigger gave the directory a usage row; the mind's usage lives on its shard.
      db.delete(mindUsage).where(eq(mindUsage.mindId, row.id)),
    ]);
  } catch (error) {
    // The directory refused the id: the shard's copy (and its usage row, by cascade) goes too.
    await deps.shards.db(row.shard).delete(minds).where(eq(minds.id, row.id));
    throw error;
  }
}

/** Whether a write failed because another mind has this id or its search token. */
function isMindIdTaken(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/UNIQUE constraint failed: (index 'minds_search_token'|minds\.id)/.test(e.message)) return true;
  }
  return false;
}

/** The shard's copy of a mind's row, with a bare row of its account for the foreign key. */
export async function writeShardCopy(deps: Pick<Deps, "shards">, row: MindRow, options: { replace?: boolean } = {}): Promise<void> {
  const shard = deps.shards.db(row.shard);
  const copy = { ...row, writes: "open" as const, movingTo: null };
  const { id: _id, ...fields } = copy;
  const insert = shard.insert(minds).values(copy);
  await shard.batch([
    shard.insert(accounts).values({ id: row.accountId, name: row.accountId, locale: "en", createdAt: row.createdAt }).onConflictDoNothing(),
    options.replace ? insert.onConflictDoUpdate({ target: minds.id, set: fields }) : insert,
  ]);
}

/** The shard holding the fewest minds (the first declared on a tie), from the counts triggers keep. */
async function emptiestShard(deps: Pick<Deps, "directory" | "shards">): Promise<string> {
  const shards = everyShard(deps).map((s) => s.name);
  if (shards.length === 1) return shards[0]!;
  const counted = await deps.directory.select().from(shardMinds);
  const held = new Map(counted.map((c) => [c.shard, c.minds]));
  return shards.reduce((best, name) => ((held.get(name) ?? 0) < (held.get(best) ?? 0) ? name : best));
}

export async function listMinds(deps: Pick<Deps, "directory">, accountId: string): Promise<Mind[]> {
  const db = deps.directory;
  const rows = await db.select().from(minds).where(and(eq(minds.accountId, accountId), isNull(minds.erasingSince))).orderBy(desc(minds.createdAt));
  return rows.map(toMind);
}

/** The account's mind, or not_found: another account's mind is answered exactly like a missing one. */
export async function getMind(deps: Pick<Deps, "directory">, accountId: string, mindId: string): Promise<Mind> {
  const row = await deps.directory
    .select()
    .from(minds)
    .where(and(eq(minds.id, mindId), eq(minds.accountId, accountId), isNull(minds.erasingSince)))
    .get();
  if (!row) throw notFound("mind");
  return toMind(row);
}

/** A mind by id alone, for callers already holding a key bound to it. */
export async function getMindById(deps: Pick<Deps, "directory">, mindId: string): Promise<Mind> {
  const row = await deps.directory.select().from(minds).where(and(eq(minds.id, mindId), isNull(minds.erasingSince))).get();
  if (!row) throw notFound("mind");
  return toMind(row);
}

export async function updateMind(
  deps: Pick<Deps, "directory" | "shards" | "clock">,
  accountId: string,
  mindId: string,
  patch: Partial<Omit<MindInput, "settings">> & { settings?: Partial<MindSettings> },
): Promise<Mind> {
  const current = await getMind(deps, accountId, mindId);
  if (current.moving) throw mindMoving();
  const settings = resolveSettings({ ...current.settings, ...patch.settings });
  const fields = {
    name: patch.name ?? current.name,
    locale: patch.locale ?? current.locale,
    retentionHours: patch.retention_hours === undefined ? current.retention_hours : patch.retention_hours,
    settings,
    updatedAt: isoNow(deps.clock),
  };
  const row = await setMindFields(deps, current, fields, eq(minds.accountId, accountId));
  if (!row) throw notFound("mind");
  return toMind(row);
}

/** After an import wrote a mind's settings into its shard's copy of the row, the directory takes them too. */
export async function copySettingsToDirectory(deps: Pick<Deps, "directory" | "shards">, mindId: string): Promise<void> {
  const directory = deps.directory;
  const found = await directory.select({ shard: minds.shard }).from(minds).where(eq(minds.id, mindId)).get();
  if (!found) return;
  // On DB the import wrote the directory's own row: only this isolate's entry is left to forget.
  const row = found.shard === DIRECTORY ? null : await deps.shards.db(found.shard).select().from(minds).where(eq(minds.id, mindId)).get();
  await changingMind(mindId, async () => {
    if (row) await mindRowUpdate(directory, mindId, { locale: row.locale, retentionHours: row.retentionHours, settings: row.settings, updatedAt: row.updatedAt });
  });
}

/** A shard's bare row of an account that no mind on that shard refers to any more. */
export const accountUnused = (db: Db, accountId: string) =>
  and(eq(accounts.id, accountId), notExists(db.select({ one: sql`1` }).from(minds).where(eq(minds.accountId, accountId))));

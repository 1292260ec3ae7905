import { eq } from "drizzle-orm";
import { mindUsage, minds } from "../db/schema";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import { resolveSettings, type MindSettings } from "./settings";

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

/** The mind's settings and what it holds now: one indexed read. */
export async function readUsage({ db }: Deps, mindId: string): Promise<{ settings: MindSettings; usage: MindUsage }> {
  const row = await db
    .select({ settings: minds.settings, memories: mindUsage.memories, notes: mindUsage.notes, bytes: mindUsage.bytes })
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

/**
 * Refuses a write that would take the mind past one of its quotas (403 quota_exceeded, the
 * setting named). A check, then the write: writes racing each other may pass a quota by a few.
 * `replaces` says, only when it matters, whether the memory written already exists (an
 * update in place adds no memory).
 */
export async function assertWithinQuota(
  deps: Deps,
  mindId: string,
  need: QuotaNeed,
  replaces?: () => Promise<boolean>,
): Promise<void> {
  const { settings, usage } = await readUsage(deps, mindId);
  const memories = need.memories ?? 0;
  const wouldPass = memories > 0 && usage.memories + memories > settings.max_memories;
  checkQuota(settings, usage, wouldPass && replaces && (await replaces()) ? { ...need, memories: 0 } : need);
}

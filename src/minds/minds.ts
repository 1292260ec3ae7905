import { and, count, desc, eq, inArray } from "drizzle-orm";
import { isoNow } from "../clock";
import {
  accounts,
  chats,
  coldMemory,
  coldVersions,
  consolidations,
  llmUsage,
  loginLinks,
  memories,
  memoryHistory,
  messages,
  mindKeys,
  minds,
  noteExtractions,
  notes,
  sessions,
  mindUsage,
  oauthGrants,
  embeddings,
  telegramChats,
  type MindRow,
} from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { newId } from "../ids";
import { forgetSessionObjects, type SessionDeps } from "../sessions/objects";
import { resolveSettings, type MindSettings } from "./settings";

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
}

export interface MindInput {
  name: string;
  locale?: Locale;
  retention_hours?: number | null;
  settings?: Partial<MindSettings>;
}

const toMind = (row: MindRow): Mind => ({
  id: row.id,
  name: row.name,
  locale: row.locale,
  retention_hours: row.retentionHours,
  settings: resolveSettings(row.settings),
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/** Finds the account with this name, creating it when there is none. */
export async function ensureAccount({ db, clock }: Deps, name: string): Promise<{ id: string; created: boolean }> {
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

export async function accountExists({ db }: Deps, accountId: string): Promise<boolean> {
  const row = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).get();
  return row !== undefined;
}

export async function createMind({ db, clock }: Deps, accountId: string, input: MindInput): Promise<Mind> {
  const now = isoNow(clock);
  const [row] = await db
    .insert(minds)
    .values({
      id: newId("mind"),
      accountId,
      name: input.name,
      locale: input.locale ?? "en",
      retentionHours: input.retention_hours ?? null,
      settings: resolveSettings(input.settings ?? {}),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return toMind(row!);
}

export async function listMinds({ db }: Deps, accountId: string): Promise<Mind[]> {
  const rows = await db.select().from(minds).where(eq(minds.accountId, accountId)).orderBy(desc(minds.createdAt));
  return rows.map(toMind);
}

/** The account's mind, or not_found: another account's mind is answered exactly like a missing one. */
export async function getMind({ db }: Deps, accountId: string, mindId: string): Promise<Mind> {
  const row = await db
    .select()
    .from(minds)
    .where(and(eq(minds.id, mindId), eq(minds.accountId, accountId)))
    .get();
  if (!row) throw notFound("mind");
  return toMind(row);
}

/** A mind by id alone, for callers already holding a key bound to it. */
export async function getMindById({ db }: Deps, mindId: string): Promise<Mind> {
  const row = await db.select().from(minds).where(eq(minds.id, mindId)).get();
  if (!row) throw notFound("mind");
  return toMind(row);
}

export async function updateMind(
  deps: Deps,
  accountId: string,
  mindId: string,
  patch: Partial<Omit<MindInput, "settings">> & { settings?: Partial<MindSettings> },
): Promise<Mind> {
  const current = await getMind(deps, accountId, mindId);
  const settings = resolveSettings({ ...current.settings, ...patch.settings });
  const [row] = await deps.db
    .update(minds)
    .set({
      name: patch.name ?? current.name,
      locale: patch.locale ?? current.locale,
      retentionHours: patch.retention_hours === undefined ? current.retention_hours : patch.retention_hours,
      settings,
      updatedAt: isoNow(deps.clock),
    })
    .where(and(eq(minds.id, mindId), eq(minds.accountId, accountId)))
    .returning();
  if (!row) throw notFound("mind");
  return toMind(row);
}

/**
 * Erases the mind and everything it owns (the foreign keys cascade), then the stored state
 * of its sessions' objects; returns how many rows of each kind went.
 */
export async function deleteMind(deps: SessionDeps, accountId: string, mindId: string): Promise<Record<string, number>> {
  await getMind(deps, accountId, mindId);
  const { db } = deps;
  const mindSessions = db.select({ id: sessions.id }).from(sessions).where(eq(sessions.mindId, mindId));
  const counted = await db.batch([
    db.select({ n: count() }).from(memories).where(eq(memories.mindId, mindId)),
    db.select({ n: count() }).from(memoryHistory).where(eq(memoryHistory.mindId, mindId)),
    db.select({ n: count() }).from(mindKeys).where(eq(mindKeys.mindId, mindId)),
    db.select({ n: count() }).from(chats).where(eq(chats.mindId, mindId)),
    mindSessions,
    // Through the sessions: messages are indexed by session, not by mind.
    db.select({ n: count() }).from(messages).where(inArray(messages.sessionId, mindSessions)),
    db.select({ n: count() }).from(notes).where(eq(notes.mindId, mindId)),
    db.select({ n: count() }).from(coldMemory).where(eq(coldMemory.mindId, mindId)),
    db.select({ n: count() }).from(coldVersions).where(eq(coldVersions.mindId, mindId)),
    db.select({ n: count() }).from(consolidations).where(eq(consolidations.mindId, mindId)),
    db.select({ n: count() }).from(noteExtractions).where(eq(noteExtractions.mindId, mindId)),
    db.select({ n: count() }).from(llmUsage).where(eq(llmUsage.mindId, mindId)),
    db.select({ n: count() }).from(loginLinks).where(eq(loginLinks.mindId, mindId)),
    db.select({ n: count() }).from(telegramChats).where(eq(telegramChats.mindId, mindId)),
    db.select({ n: count() }).from(oauthGrants).where(eq(oauthGrants.mindId, mindId)),
    // No foreign key here (see the migration): the records go explicitly, their vectors below.
    db.delete(embeddings).where(eq(embeddings.mindId, mindId)).returning({ rowId: embeddings.rowId }),
    db.select({ n: count() }).from(mindUsage).where(eq(mindUsage.mindId, mindId)),
    // Last: every table above goes with the mind by ON DELETE CASCADE.
    db.delete(minds).where(and(eq(minds.id, mindId), eq(minds.accountId, accountId))),
  ]);
  const sessionIds = counted[4].map((s) => s.id);
  await forgetSessionObjects(deps.sessionObjects, sessionIds);
  const vectorIds = counted[15].map((e) => e.rowId);
  for (let i = 0; i < vectorIds.length && deps.semantic; i += 500) await deps.semantic.index.remove(mindId, vectorIds.slice(i, i + 500));
  return {
    minds: 1,
    memories: counted[0][0]?.n ?? 0,
    memory_history: counted[1][0]?.n ?? 0,
    mind_keys: counted[2][0]?.n ?? 0,
    chats: counted[3][0]?.n ?? 0,
    sessions: sessionIds.length,
    messages: counted[5][0]?.n ?? 0,
    notes: counted[6][0]?.n ?? 0,
    cold_memory: counted[7][0]?.n ?? 0,
    cold_versions: counted[8][0]?.n ?? 0,
    consolidations: counted[9][0]?.n ?? 0,
    note_extractions: counted[10][0]?.n ?? 0,
    llm_usage: counted[11][0]?.n ?? 0,
    login_links: counted[12][0]?.n ?? 0,
    telegram_chats: counted[13][0]?.n ?? 0,
    oauth_grants: counted[14][0]?.n ?? 0,
    embeddings: vectorIds.length,
    mind_usage: counted[16][0]?.n ?? 0,
  };
}

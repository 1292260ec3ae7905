import { and, asc, count, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import { type NoteRow, notes, sessions } from "../db/schema";
import { conflict, forbidden, notFound } from "../errors";
import { newId } from "../ids";
import { inScope } from "../memory/filters";
import { toIndexText, toMatchExpression } from "../memory/normalize";
import { afterWrite, writeWith } from "../memory/outbox";
import { boundContext } from "../memory/rows";
import type { MindContext } from "../tenancy/mind-context";
import { isPerson } from "../tenancy/principal";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import { type CategoryHint, factKey } from "./document";

/** A note as every front shows it. */
export interface Note {
  id: string;
  mind_id: string;
  agent: string;
  session_id: string | null;
  text: string;
  category_hint: string | null;
  source: "user" | "agent";
  confidence: number;
  /** Set while a consolidation is folding the note. */
  consolidation_id: string | null;
  created_at: string;
  /** Where it came from; only when asked for, never as its text. */
  context?: string;
}

export interface NoteInput {
  text: string;
  session_id?: string;
  category_hint?: CategoryHint;
  /** Where it came from (the dialogue it was heard in, a document section): indexed at a lower weight. */
  context?: string;
}

export const toNote = (row: NoteRow): Note => ({
  id: row.id,
  mind_id: row.mindId,
  agent: row.agent,
  session_id: row.sessionId,
  text: row.text,
  category_hint: row.categoryHint,
  source: row.source === "user" ? "user" : "agent",
  confidence: row.confidence,
  consolidation_id: row.consolidationId,
  created_at: row.createdAt,
});

/** The note with its context beside it when `withContext`. */
const toNoteWithContext = (row: NoteRow, withContext: boolean | undefined): Note =>
  withContext ? { ...toNote(row), context: row.context } : toNote(row);

/** Longest note, in characters. */
export const NOTE_MAX_CHARS = 2000;

/** The columns a new note is stored with, search and duplicate keys included. */
export function noteValues(
  fields: { mindId: string; agent: string; text: string; sessionId: string | null; categoryHint: string | null; source: string; confidence: number },
  now: string,
  context?: string,
): Required<Omit<typeof notes.$inferInsert, "consolidationId">> & { consolidationId: null } {
  const bounded = boundContext(context);
  return {
    id: newId("note"),
    ...fields,
    consolidationId: null,
    createdAt: now,
    searchText: toIndexText(fields.mindId, fields.text),
    context: bounded,
    searchContext: toIndexText(fields.mindId, bounded),
    textKey: factKey(fields.text),
  };
}

/**
 * Appends a note to the scope's namespace. A human's note is the user's own word
 * (confidence 1.0); an agent's note has confidence 0.7.
 */
export async function addNote(mindContext: MindContext, input: NoteInput): Promise<Note> {
  const { shard, clock, scope } = mindContext;
  // A note may name only a session the caller can see: another mind's (or namespace's) is not found.
  if (input.session_id != null) {
    const visible = await shard.select({ id: sessions.id }).from(sessions).where(and(eq(sessions.id, input.session_id), inScope(scope, sessions))).get();
    if (!visible) throw notFound("session");
  }
  const human = isPerson(scope.principal);
  const values = noteValues(
    {
      mindId: scope.mindId,
      agent: scope.agent,
      text: input.text,
      sessionId: input.session_id ?? null,
      categoryHint: input.category_hint ?? null,
      source: human ? "user" : "agent",
      confidence: human ? 1.0 : 0.7,
    },
    isoNow(clock),
    input.context,
  );
  const after = afterWrite(mindContext, { row: "note", what: "created", ids: [values.id] });
  const [[row]] = await writeWithinQuota(mindContext, { notes: 1, bytes: storedBytes(input.text) }, (guard) =>
    shard.batch([shard.insert(notes).values(values).returning(), guard, ...after.statements]),
  );
  after.landed();
  return toNoteWithContext(row!, input.context !== undefined);
}

/** Notes waiting to be folded into cold memory, oldest first. */
export async function listNotes(
  { shard, scope }: Pick<MindContext, "scope" | "shard">,
  page: { limit: number; offset: number },
): Promise<{ notes: Note[]; total: number }> {
  const where = inScope(scope, notes);
  const [rows, totals] = await shard.batch([
    shard.select().from(notes).where(where).orderBy(asc(notes.createdAt), asc(notes.id)).limit(page.limit).offset(page.offset),
    shard.select({ n: count() }).from(notes).where(where),
  ]);
  return { notes: rows.map(toNote), total: totals[0]?.n ?? 0 };
}

/** Full-text search over waiting notes with the same normalisation as memories, best first. */
export async function searchNotes({ shard, scope }: Pick<MindContext, "scope" | "shard">, options: { q: string; limit: number; withContext?: boolean },
): Promise<{ note: Note; score: number }[]> {
  const match = toMatchExpression(scope.mindId, options.q);
  if (match === null) return [];
  // A note's context counts for half of its own words, as a memory's does.
  const score = sql<number>`(-bm25(notes_fts, 1.0, 0.5))`;
  const rows = await shard
    .select({ ...getTableColumns(notes), score })
    .from(notes)
    .innerJoin(sql`notes_fts`, sql`notes_fts.rowid = ${notes}.rowid`)
    .where(and(sql`notes_fts match ${match}`, inScope(scope, notes)))
    .orderBy(sql`${score} desc`, asc(notes.createdAt))
    .limit(options.limit);
  return rows.map(({ score, ...row }) => ({ note: toNoteWithContext(row, options.withContext), score }));
}

/** Notes an agent or extraction wrote that no person has confirmed yet, oldest first. */
export async function listUnverifiedNotes({ shard, scope }: Pick<MindContext, "scope" | "shard">, limit: number): Promise<Note[]> {
  const rows = await shard
    .select()
    .from(notes)
    .where(and(inScope(scope, notes), eq(notes.source, "agent")))
    .orderBy(asc(notes.createdAt), asc(notes.id))
    .limit(limit);
  return rows.map(toNote);
}

/** A person confirms a note: it becomes their own word (source user, confidence 1.0). */
export async function verifyNote(mindContext: MindContext, id: string): Promise<Note> {
  const { shard, scope } = mindContext;
  if (!isPerson(scope.principal)) throw forbidden("only a human can verify a note");
  const after = afterWrite(mindContext, { row: "note", what: "verified", ids: [id] });
  const verify = shard
    .update(notes)
    .set({ source: "user", confidence: 1.0 })
    .where(and(eq(notes.id, id), inScope(scope, notes)))
    .returning();
  const [row] = await writeWith(shard, verify, after);
  if (!row) throw notFound("note");
  after.landed();
  return toNote(row);
}

/** Deletes a waiting note; one a consolidation is folding right now answers conflict. */
export async function deleteNote(mindContext: MindContext, id: string): Promise<Note> {
  const { shard, scope } = mindContext;
  const after = afterWrite(mindContext, { row: "note", what: "deleted", ids: [id] });
  const remove = shard
    .delete(notes)
    .where(and(eq(notes.id, id), inScope(scope, notes), isNull(notes.consolidationId)))
    .returning();
  const [row] = await writeWith(shard, remove, after);
  if (row) {
    after.landed();
    return toNote(row);
  }
  const exists = await shard.select({ id: notes.id }).from(notes).where(and(eq(notes.id, id), inScope(scope, notes))).get();
  if (!exists) throw notFound("note");
  throw conflict("the note is being consolidated right now; try again in a minute");
}

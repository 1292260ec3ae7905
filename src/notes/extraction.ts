import { and, eq, notExists, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { z } from "zod";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { minds, noteExtractions, notes } from "../db/schema";
import { AppError } from "../errors";
import { generateObjectFor } from "../llm/generate";
import { type MemoryWrite, planMemoryWrite } from "../memory/memories";
import { queryTerms } from "../memory/normalize";
import { afterWrite } from "../memory/outbox";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import type { Scope } from "../tenancy/principal";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import { documentLocale, factKey, oneLine, SECTION_IDS, type SectionId } from "./document";
import { KNOWN_RULES, type KnownMemory, knownBlock, knownMemories, knownVerdict, verdictOf } from "./known-memories";
import { noteValues } from "./notes";

/** A message of a session's history as extraction reads it (non-ephemeral ones only). */
export interface PlainMessage {
  id: string;
  role: string;
  content: string;
  /** When it was said (ISO 8601): a fact drawn from it was stated then. */
  created_at?: string;
}

/** A session's messages to extract from; the notes go to the context's mind and namespace. */
export interface ExtractionInput {
  sessionId: string;
  /** The id of the last message already extracted; null at the start of the session. */
  cursor: string | null;
  /** The messages after the cursor, oldest first. */
  messages: PlainMessage[];
}

export const SIGNALS = ["correction", "prohibition", "dissatisfaction", "preference", "fact"] as const;
const NEGATIVE = new Set<string>(["correction", "prohibition", "dissatisfaction"]);

export interface NoteDraft {
  text: string;
  category_hint: SectionId;
  signal: (typeof SIGNALS)[number];
  confidence: number;
  /** The messages the fact was drawn from, as the note's context. */
  context: string;
  /** When the fact was stated: the time of the latest message it was drawn from, when known. */
  observed_at?: string;
  /** The memory the model said the fact replaces: the fact becomes its newest statement. */
  replaces?: KnownMemory;
}

export type ExtractionPlan =
  /** `repeated`: facts the model found the mind already remembers, left out of `notes`. */
  | { status: "extracted"; notes: NoteDraft[]; repeated?: number; cursor: string; modelCalls: number }
  /** Nothing after the cursor, no model configured, over budget, or the model failed: the cursor stays. */
  | { status: "nothing" | "no_model" | "budget" | "failed"; cursor: string | null; error?: string };

// One call reads at most this much dialogue; the rest is read by the next extraction.
const MAX_TRANSCRIPT_CHARS = 24_000;
const MAX_MESSAGE_CHARS = 4_000;
const AGENT_CONFIDENCE = 0.7;
// Each source message in a note's context is cut to this many characters.
const MAX_SOURCE_CHARS = 600;

const Extracted = z.object({
  notes: z
    .array(
      z.object({
        text: z.string().transform(oneLine).pipe(z.string().min(3).max(500)),
        section: z.enum(SECTION_IDS).catch("context"),
        signal: z.enum(SIGNALS).catch("fact"),
        confidence: z.number().min(0).max(1).optional(),
        from: z.array(z.number().int().min(1)).max(10).optional().catch(undefined),
        ...knownVerdict,
      }),
    )
    .max(30),
});

const SYSTEM = [
  "You read a conversation between a person and an assistant and write down what is worth remembering about the person for the long term.",
  'Answer with one JSON object only: {"notes":[{"text":"…","section":"…","signal":"…","confidence":0.8,"from":[3]}]}',
  "Rules:",
  "- One note is one self-contained fact, readable without the dialogue: name the subject, no 'he', 'this' or 'as above'.",
  "- Negative signals come first: corrections of the assistant, prohibitions (never do / don't use), dissatisfaction.",
  "- Leave out one-off chatter, greetings, thanks, and anything true only for this moment.",
  "- Leave out what the assistant said unless the person confirmed it.",
  `- section is one of ${SECTION_IDS.join(", ")}; signal is one of correction, prohibition, dissatisfaction, preference, fact.`,
  "- confidence (0 to 1) is how sure the conversation makes the fact.",
  "- from lists the numbers (#) of the messages the fact was drawn from.",
  '- Write each note in the language the person speaks. With nothing worth keeping, answer {"notes":[]}.',
].join("\n");

/**
 * Asks the model for notes from the messages after the cursor, and says where the cursor
 * moves. With no model, over budget or on a model failure nothing is extracted and the cursor
 * stays, so no message is ever skipped. Writes nothing: `saveExtraction` does.
 */
export async function extractNotes(mindContext: MindContext, input: ExtractionInput): Promise<ExtractionPlan> {
  const window = transcriptWindow(input.messages);
  if (window.length === 0) return { status: "nothing", cursor: input.cursor };
  const model = mindContext.model();
  if (!model) return { status: "no_model", cursor: input.cursor };
  const { mind } = mindContext;
  const transcript = window.map((m, i) => `#${i + 1} ${m.role}: ${m.content.slice(0, MAX_MESSAGE_CHARS)}`).join("\n\n");
  const known = await knownMemories(mindContext, window.filter((m) => m.role === "user").map((m) => m.content.slice(0, MAX_MESSAGE_CHARS)));
  const language = `The person's usual language: ${documentLocale(mind.locale) === "ru" ? "Russian" : "English"}.`;
  try {
    const answer = await generateObjectFor(
      mindContext,
      model,
      {
        account: tokenAccountOf(mindContext),
        purpose: "extraction",
        system: known.length === 0 ? SYSTEM : [SYSTEM, ...KNOWN_RULES].join("\n"),
        prompt: `${language}\n\n${knownBlock(known)}<conversation>\n${transcript}\n</conversation>`,
      },
      Extracted,
    );
    const drafts = draftsOf(answer.value, window, known);
    const notes = drafts.filter((d) => d !== "same") as NoteDraft[];
    return { status: "extracted", notes, repeated: drafts.length - notes.length, cursor: window.at(-1)!.id, modelCalls: answer.calls };
  } catch (error) {
    if (error instanceof AppError && error.code === "budget_exceeded") return { status: "budget", cursor: input.cursor };
    if (error instanceof AppError && error.code === "model_failed") {
      return { status: "failed", cursor: input.cursor, error: error.message };
    }
    throw error;
  }
}

/** The first messages after the cursor that fit one call; always at least one. */
function transcriptWindow(messages: PlainMessage[]): PlainMessage[] {
  const window: PlainMessage[] = [];
  let chars = 0;
  for (const message of messages) {
    chars += Math.min(message.content.length, MAX_MESSAGE_CHARS);
    if (window.length > 0 && chars > MAX_TRANSCRIPT_CHARS) break;
    window.push(message);
  }
  return window;
}

/**
 * The messages a fact came from: those the model named, or else the one sharing the most words
 * with the fact.
 */
function sourcesOf(text: string, from: number[] | undefined, window: PlainMessage[]): PlainMessage[] {
  const named = [...new Set(from ?? [])].filter((n) => n <= window.length).map((n) => window[n - 1]!);
  if (named.length > 0) return named;
  const terms = new Set(queryTerms(text));
  const shared = (m: PlainMessage) => queryTerms(m.content.slice(0, MAX_MESSAGE_CHARS)).filter((t) => terms.has(t)).length;
  const best = window.reduce<{ m: PlainMessage | null; n: number }>((b, m) => (shared(m) > b.n ? { m, n: shared(m) } : b), { m: null, n: 0 });
  return best.m ? [best.m] : [];
}

/** The sources as a note's context, one message a line. */
const contextOf = (sources: PlainMessage[]) => sources.map((m) => `${m.role}: ${oneLine(m.content).slice(0, MAX_SOURCE_CHARS)}`).join("\n");

/** When a fact was stated: its latest source's time, else the window's last message's (when messages carry times). */
function statedWhen(sources: PlainMessage[], window: PlainMessage[]): string | undefined {
  const times = (sources.length > 0 ? sources : window.slice(-1)).flatMap((m) => (m.created_at === undefined ? [] : [m.created_at]));
  return times.sort().at(-1);
}

/**
 * Negative signals first (the model is asked to, this makes sure), duplicates dropped; a fact
 * the model found the mind already remembers is "same", one it found replacing a memory says which.
 */
function draftsOf(answer: z.infer<typeof Extracted>, window: PlainMessage[], known: KnownMemory[]): (NoteDraft | "same")[] {
  const seen = new Set<string>();
  const drafts = answer.notes
    .filter((n) => {
      const key = factKey(n.text);
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((n): NoteDraft | "same" => {
      const verdict = verdictOf(n, known);
      if (verdict?.said === "same") return "same";
      const sources = sourcesOf(n.text, n.from, window);
      const observed = statedWhen(sources, window);
      return {
        text: n.text,
        category_hint: n.section,
        signal: n.signal,
        confidence: n.confidence ?? AGENT_CONFIDENCE,
        context: contextOf(sources),
        ...(observed !== undefined && { observed_at: observed }),
        ...(verdict?.said === "replaces" && { replaces: verdict.memory }),
      };
    });
  const negative = (d: NoteDraft | "same") => d !== "same" && NEGATIVE.has(d.signal);
  return [...drafts.filter(negative), ...drafts.filter((d) => !negative(d))];
}

/**
 * The statements that store an extraction: its notes, then a record keyed by the cursor it
 * started from. Each note is written only if no extraction from that cursor was recorded
 * and the same fact is not already waiting, so a second run over the same messages adds
 * nothing. Callers add the cursor move to the same batch.
 */
function extractionWrites(
  { shard, clock, scope }: Pick<MindContext, "shard" | "clock" | "scope">,
  input: ExtractionInput,
  plan: ExtractionPlan,
): { statements: BatchItem<"sqlite">[]; noteIds: string[] } {
  if (plan.status !== "extracted") return { statements: [], noteIds: [] };
  const now = isoNow(clock);
  const recorded = extractionRecorded(shard, scope, input);
  const values = plan.notes.map((draft) => draftValues(scope, input, draft, now));
  const inserts = values.map((v) => insertNewNote(shard, v, recorded));
  const record = shard
    .insert(noteExtractions)
    .values({
      mindId: scope.mindId,
      sessionId: input.sessionId,
      afterMessageId: startedAfter(input),
      throughMessageId: plan.cursor,
      agent: scope.agent,
      noteCount: plan.notes.length,
      createdAt: now,
    })
    .onConflictDoNothing();
  return { statements: [...inserts, record], noteIds: values.map((v) => v.id) };
}

/** The message an extraction is keyed by: the one it started after, the empty id at the session's start. */
const startedAfter = (input: ExtractionInput) => input.cursor ?? "";

/** The record of an extraction from the input's cursor. */
function extractionRecorded(shard: Db, { mindId }: Pick<Scope, "mindId">, input: ExtractionInput) {
  return shard
    .select({ one: sql<number>`1` })
    .from(noteExtractions)
    .where(
      and(
        eq(noteExtractions.mindId, mindId),
        eq(noteExtractions.sessionId, input.sessionId),
        eq(noteExtractions.afterMessageId, startedAfter(input)),
      ),
    );
}

/** A drafted note as the agent's note of the session, its sources as its context. */
function draftValues({ mindId, agent }: Pick<Scope, "mindId" | "agent">, input: ExtractionInput, draft: NoteDraft, now: string) {
  return noteValues(
    {
      mindId,
      agent,
      text: draft.text,
      sessionId: input.sessionId,
      categoryHint: draft.category_hint,
      source: "agent",
      confidence: draft.confidence,
    },
    now,
    draft.context,
  );
}

/** Inserts the note unless the extraction was `recorded` already or the same fact is waiting in the namespace. */
function insertNewNote(shard: Db, v: ReturnType<typeof noteValues>, recorded: SQLWrapper) {
  const waiting = shard
    .select({ one: sql<number>`1` })
    .from(notes)
    .where(and(eq(notes.mindId, v.mindId), eq(notes.agent, v.agent), eq(notes.textKey, v.textKey)));
  // Selected from the mind's own row: the note is written only while the mind exists.
  const row = shard
    .select({
      id: sql<string>`${v.id}`.as("id"),
      mindId: minds.id,
      agent: sql<string>`${v.agent}`.as("agent"),
      sessionId: sql<string>`${v.sessionId}`.as("session_id"),
      text: sql<string>`${v.text}`.as("text"),
      categoryHint: sql<string>`${v.categoryHint}`.as("category_hint"),
      source: sql<string>`${v.source}`.as("source"),
      confidence: sql<number>`${v.confidence}`.as("confidence"),
      consolidationId: sql<null>`null`.as("consolidation_id"),
      createdAt: sql<string>`${v.createdAt}`.as("created_at"),
      searchText: sql<string>`${v.searchText}`.as("search_text"),
      context: sql<string>`${v.context}`.as("context"),
      searchContext: sql<string>`${v.searchContext}`.as("search_context"),
      textKey: sql<string>`${v.textKey}`.as("text_key"),
    })
    .from(minds)
    .where(and(eq(minds.id, v.mindId), notExists(recorded), notExists(waiting)));
  return shard.insert(notes).select(row).returning({ id: notes.id });
}

/**
 * Writes an extraction in one D1 batch, together with `alongside` (the session's cursor
 * move), and returns how many notes were new.
 */
export async function saveExtraction(
  mindContext: MindContext,
  input: ExtractionInput,
  plan: ExtractionPlan,
  alongside: BatchItem<"sqlite">[] = [],
): Promise<{ written: number; replaced: number }> {
  const { statements: writes, noteIds } = extractionWrites(mindContext, input, plan);
  const replacements = plan.status === "extracted" ? await replacementWrites(mindContext, plan.notes) : [];
  // A note the batch leaves unwritten (the same fact waiting, the extraction recorded) is not found by its id there.
  const after = afterWrite(mindContext, { row: "note", what: "created", ids: noteIds });
  const statements = [...writes, ...replacements.flatMap((r) => r.statements), ...alongside];
  if (statements.length === 0) return { written: 0, replaced: 0 };
  const batch = (more: BatchItem<"sqlite">[]) =>
    mindContext.shard.batch([...statements, ...more, ...after.statements] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const bytes = plan.status === "extracted" ? plan.notes.reduce((n, note) => n + storedBytes(note.text), 0) : 0;
  const results =
    plan.status === "extracted" && plan.notes.length > 0
      ? await writeWithinQuota(mindContext, { notes: plan.notes.length, bytes }, (guard) => batch([guard]))
      : await batch([]);
  const noteResults = (writes.length > 0 ? results.slice(0, writes.length - 1) : []) as { id: string }[][];
  after.landed(noteResults.flat().map((row) => row.id));
  let at = writes.length;
  for (const replacement of replacements) {
    replacement.landed((results[at + replacement.rowAt] as { id: string }[])[0]!.id);
    at += replacement.statements.length;
  }
  return { written: noteResults.reduce((n, rows) => n + rows.length, 0), replaced: replacements.length };
}

/**
 * Each fact the model said replaces a memory becomes that memory's newest statement, stated when
 * the messages it came from were said (its note still reaches cold memory): the writes for the
 * extraction's own batch.
 */
function replacementWrites(mindContext: MindContext, drafts: NoteDraft[]): Promise<MemoryWrite[]> {
  return Promise.all(
    drafts.flatMap((d) =>
      d.replaces === undefined
        ? []
        : [planMemoryWrite(mindContext, { ...d.replaces, content: d.text, confidence: d.confidence, observed_at: d.observed_at })],
    ),
  );
}

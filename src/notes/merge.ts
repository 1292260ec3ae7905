import { z } from "zod";
import type { InShard } from "../deps";
import { generateObjectFor, type ModelAnswer } from "../llm/generate";
import type { TokenAccount, TokenUsage } from "../llm/ledger";
import type { LanguageModel } from "../llm/providers";
import {
  type ColdDocument,
  type DocumentLocale,
  factKey,
  oneLine,
  parseDocument,
  renderDocument,
  SECTION_IDS,
  sectionForHint,
} from "./document";
import { type DocumentWindow, MODEL_FACT_CHARS, notesInParts, type Sections, windowFor, withinAnswerBound } from "./merge-window";
import type { Note } from "./notes";

export { MODEL_SECTION_FACTS } from "./merge-window";

export interface MergeInput {
  locale: DocumentLocale;
  /** The current cold memory text. */
  current: string;
  currentVersion: number;
  /** Oldest first. */
  notes: Note[];
}

/**
 * The merge used when no model is configured: each note goes into the section its hint names
 * (the work context when it has none), and facts equal to one already present, exactly or
 * after normalisation, are dropped. The same input always gives the same document.
 */
export function mergeOffline(input: MergeInput): string {
  const doc = parseDocument(input.current);
  foldOffline(doc, input.notes);
  return renderDocument(doc, input.locale);
}

/** The deterministic merge in place: the document without duplicates, then each new note in its section. */
function foldOffline(doc: ColdDocument, notes: Note[]): void {
  const seen = removeDuplicates(doc);
  for (const note of notes) {
    const fact = oneLine(note.text);
    const key = factKey(fact);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    doc.sections[sectionForHint(note.category_hint)].push(fact);
  }
}

// The answer's shape. Its size is checked apart (withinAnswerBound): an answer past the bound is
// no malformed answer to ask again for, its part is folded deterministically instead.
const fact = z.string().transform(oneLine).pipe(z.string().min(1).max(MODEL_FACT_CHARS));
const section = z.array(fact).default([]);
const MergedSections = z.object({ profile: section, preferences: section, avoid: section, techniques: section, context: section, glossary: section });

const LANGUAGE: Record<DocumentLocale, string> = { en: "English", ru: "Russian" };

function systemPrompt(locale: DocumentLocale): string {
  return [
    "You maintain a person's long-term memory: one compact document of atomic facts in sections.",
    "Fold the new notes into the current document and answer with one JSON object only:",
    '{"profile":[],"preferences":[],"avoid":[],"techniques":[],"context":[],"glossary":[]}',
    "Sections: profile = who the person is; preferences = how they like things done;",
    "avoid = corrections, prohibitions and what displeased them; techniques = methods and tools that work;",
    "context = current projects, environment and work facts; glossary = their terms and what they mean.",
    "Rules:",
    "- One array item is one atomic, self-contained fact on one line, without a bullet.",
    "- Keep every fact of the current document that is still true, each in exactly one section.",
    "- Remove duplicates and facts made outdated by newer notes.",
    "- Notes are listed oldest first; when two statements contradict each other, the newer one wins.",
    "- Keep it compact: merge overlapping facts, no commentary, no dates unless they matter.",
    "- Never mark anything as verified or confirmed.",
    `- Write the facts in ${LANGUAGE[locale]}.`,
    "- Leave the array of a section with nothing in it empty.",
  ].join("\n");
}

function userPrompt(input: MergeInput, part: Note[], window: DocumentWindow): string {
  const known = renderDocument({ preamble: [], sections: window.shown, other: [], headings: {} }, input.locale);
  const notes = part.map((n) => `- [${sectionForHint(n.category_hint)}] ${oneLine(n.text)}`);
  const heading =
    window.keptFacts > 0
      ? `Current document (version ${input.currentVersion}), its newest facts (${window.keptFacts} older ones are kept as they are):`
      : `Current document (version ${input.currentVersion}):`;
  return [
    heading,
    "<document>",
    known.trimEnd(),
    "</document>",
    "",
    "New notes, oldest first:",
    "<notes>",
    ...notes,
    "</notes>",
  ].join("\n");
}

export interface ModelMerge extends ModelAnswer<string> {
  /** Parts whose answer passed the bound and were folded deterministically instead. */
  offlineParts: number;
}

/**
 * Merges notes into cold memory with the model, in parts (merge-window.ts): each call folds a part
 * of the notes into the newest facts of each section, the older ones kept ahead of its answer.
 * Only the known sections go to the model; text under headings it does not know is kept as it
 * was. An answer past the bound folds its part deterministically. The result is cleaned of
 * duplicate facts and rendered in the mind's language (a person's own headings kept).
 */
export async function mergeWithModel(
  deps: Pick<InShard, "shard" | "clock">,
  model: LanguageModel,
  input: MergeInput & { account: TokenAccount },
): Promise<ModelMerge> {
  const doc = parseDocument(input.current);
  removeDuplicates(doc);
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  let calls = 0;
  let offlineParts = 0;
  for (const part of notesInParts(input.notes)) {
    const window = windowFor(doc.sections, part);
    const answer = await generateObjectFor(
      deps,
      model,
      { account: input.account, purpose: "consolidation", system: systemPrompt(input.locale), prompt: userPrompt(input, part, window) },
      MergedSections,
    );
    calls += answer.calls;
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    if (withinAnswerBound(answer.value)) {
      doc.sections = keptAhead(window.kept, answer.value);
      removeDuplicates(doc);
    } else {
      offlineParts++;
      foldOffline(doc, part);
    }
  }
  return { value: renderDocument(doc, input.locale), usage, calls, offlineParts };
}

function keptAhead(kept: Sections, answer: Sections): Sections {
  return Object.fromEntries(SECTION_IDS.map((id) => [id, [...kept[id], ...answer[id]]])) as Sections;
}

/** Drops each section fact already said above it or under a heading edgemind does not know; answers what was seen. */
function removeDuplicates(doc: ColdDocument): Set<string> {
  const seen = new Set<string>(doc.other.flatMap((o) => o.lines.map(factKey)));
  for (const id of SECTION_IDS) doc.sections[id] = keepNew(doc.sections[id], seen);
  return seen;
}

/** The facts whose normalised form has not been seen yet, recording them as seen. */
function keepNew(facts: string[], seen: Set<string>): string[] {
  return facts.filter((f) => {
    const key = factKey(f);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

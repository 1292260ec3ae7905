import { z } from "zod";
import type { InShard } from "../deps";
import { generateObjectFor, type ModelAnswer } from "../llm/generate";
import type { LanguageModel } from "../llm/providers";
import {
  factKey,
  oneLine,
  parseDocument,
  renderDocument,
  SECTION_IDS,
  sectionForHint,
  type ColdDocument,
  type DocumentLocale,
} from "./document";
import type { Note } from "./notes";

/** The largest cold document edgemind writes or accepts. */
export const COLD_MAX_CHARS = 32_000;

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
  const seen = new Set<string>(doc.other.flatMap((o) => o.lines.map(factKey)));
  for (const id of SECTION_IDS) doc.sections[id] = keepNew(doc.sections[id], seen);
  for (const note of input.notes) {
    const fact = oneLine(note.text);
    const key = factKey(fact);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    doc.sections[sectionForHint(note.category_hint)].push(fact);
  }
  return renderDocument(doc, input.locale);
}

const fact = z.string().transform(oneLine).pipe(z.string().min(1).max(500));
const section = z.array(fact).max(150).default([]);
const MergedSections = z
  .object({ profile: section, preferences: section, avoid: section, techniques: section, context: section, glossary: section })
  .refine((s) => Object.values(s).flat().join("\n").length <= COLD_MAX_CHARS, "the merged memory is too long");

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

function userPrompt(input: MergeInput, known: string): string {
  const notes = input.notes.map((n) => `- [${sectionForHint(n.category_hint)}] ${oneLine(n.text)}`);
  return [
    `Current document (version ${input.currentVersion}):`,
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

/**
 * Merges notes into cold memory with the model. Only the known sections go to the model;
 * text under headings it does not know is kept as it was. The answer is validated, then
 * cleaned of duplicate facts before it is rendered in the mind's language (a person's own
 * headings kept as they wrote them).
 */
export async function mergeWithModel(
  deps: Pick<InShard, "shard" | "clock">,
  model: LanguageModel,
  input: MergeInput & { mindId: string; budget: number | null },
): Promise<ModelAnswer<string>> {
  const doc = parseDocument(input.current);
  const known: ColdDocument = { preamble: [], sections: doc.sections, other: [], headings: {} };
  const answer = await generateObjectFor(
    deps,
    model,
    {
      mindId: input.mindId,
      purpose: "consolidation",
      budget: input.budget,
      system: systemPrompt(input.locale),
      prompt: userPrompt(input, renderDocument(known, input.locale)),
    },
    MergedSections,
  );
  const merged: ColdDocument = { preamble: doc.preamble, sections: answer.value, other: doc.other, headings: doc.headings };
  const seen = new Set<string>(doc.other.flatMap((o) => o.lines.map(factKey)));
  for (const id of SECTION_IDS) merged.sections[id] = keepNew(merged.sections[id], seen);
  return { ...answer, value: renderDocument(merged, input.locale) };
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

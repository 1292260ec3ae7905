import { oneLine, SECTION_IDS, type SectionId } from "./document";
import { NOTE_MAX_CHARS, type Note } from "./notes";

// What one model answer may hold, and how a merge larger than that is cut to fit. The notes go
// to the model in parts; beside each part it is shown only the newest facts of each section
// that leave room for the part's notes, and older facts are kept as they are. An answer that
// keeps what it was shown and adds every note therefore always fits the bound, however large
// the document grows, and no fact is left out of the document for being past it.

/** The most facts one section of a model's answer may hold. */
export const MODEL_SECTION_FACTS = 150;
/** The most characters a model's answer may hold, one line break after each fact counted. */
export const MODEL_ANSWER_CHARS = 32_000;
/** The longest fact a model's answer may hold: a note as long as a note may be, kept whole. */
export const MODEL_FACT_CHARS = NOTE_MAX_CHARS;
/**
 * Notes one model call folds at most: as many as one consolidation claims (100), so a claim is one
 * call; beside 100 notes the model sees each section's newest 50 facts, beside fewer notes more.
 */
export const PART_NOTES = 100;
/** Characters of notes one model call folds at most: half the answer, the other half for the document. */
const PART_NOTE_CHARS = MODEL_ANSWER_CHARS / 2;

export type Sections = Record<SectionId, string[]>;

export interface DocumentWindow {
  /** The newest facts of each section: what the model is shown and answers for. */
  shown: Sections;
  /** The older facts of each section, kept as they are ahead of the model's answer. */
  kept: Sections;
  keptFacts: number;
}

const factChars = (fact: string) => fact.length + 1;
const noteChars = (notes: Note[]) => notes.reduce((n, note) => n + factChars(oneLine(note.text)), 0);

/** The claim's notes in parts, oldest first, each within PART_NOTES notes and PART_NOTE_CHARS characters. */
export function notesInParts(notes: Note[]): Note[][] {
  const parts: Note[][] = [];
  let part: Note[] = [];
  let chars = 0;
  for (const note of notes) {
    const length = factChars(oneLine(note.text));
    if (part.length > 0 && (part.length === PART_NOTES || chars + length > PART_NOTE_CHARS)) {
      parts.push(part);
      part = [];
      chars = 0;
    }
    part.push(note);
    chars += length;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/**
 * The document as the model sees it beside `part`: each section's newest facts, as many as leave
 * room in that section for every note of the part and, in characters, an equal share of what the
 * notes leave of the answer. A fact longer than an answer's fact stops the section there.
 */
export function windowFor(sections: Sections, part: Note[]): DocumentWindow {
  const sectionFacts = MODEL_SECTION_FACTS - part.length;
  const sectionChars = Math.floor((MODEL_ANSWER_CHARS - noteChars(part)) / SECTION_IDS.length);
  const window: DocumentWindow = { shown: emptySections(), kept: emptySections(), keptFacts: 0 };
  for (const id of SECTION_IDS) {
    const facts = sections[id];
    let from = facts.length;
    let chars = 0;
    while (from > 0 && facts.length - from < sectionFacts) {
      const fact = facts[from - 1]!;
      if (fact.length > MODEL_FACT_CHARS || chars + factChars(fact) > sectionChars) break;
      chars += factChars(fact);
      from--;
    }
    window.shown[id] = facts.slice(from);
    window.kept[id] = facts.slice(0, from);
    window.keptFacts += from;
  }
  return window;
}

/** Whether an answer stays within the bound a faithful answer to a window always keeps. */
export function withinAnswerBound(answer: Sections): boolean {
  const sections = SECTION_IDS.map((id) => answer[id]);
  if (sections.some((facts) => facts.length > MODEL_SECTION_FACTS)) return false;
  return sections.flat().reduce((n, fact) => n + factChars(fact), 0) <= MODEL_ANSWER_CHARS;
}

function emptySections(): Sections {
  return { profile: [], preferences: [], avoid: [], techniques: [], context: [], glossary: [] };
}

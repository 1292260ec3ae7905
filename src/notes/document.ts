import { normalizeText, words } from "../memory/normalize";

// Cold memory is one markdown document in sections, in the mind's language. Each line under a
// heading is one atomic fact; empty sections are left out. Headings of either language are
// recognised when reading, so a mind that changes language keeps its facts. A heading a person
// wrote in their own words (`## profile`) is kept as they wrote it.

export const SECTION_IDS = ["profile", "preferences", "avoid", "techniques", "context", "glossary"] as const;
export type SectionId = (typeof SECTION_IDS)[number];

const HEADINGS: Record<SectionId, { en: string; ru: string }> = {
  profile: { en: "Profile", ru: "Профиль" },
  preferences: { en: "Preferences", ru: "Предпочтения" },
  avoid: { en: "Avoid", ru: "Чего избегать" },
  techniques: { en: "Techniques and tools", ru: "Приёмы и инструменты" },
  context: { en: "Work context", ru: "Рабочий контекст" },
  glossary: { en: "Glossary", ru: "Глоссарий" },
};

/** Memory categories a note may be hinted with, and the section each belongs in. */
const CATEGORY_SECTIONS: Record<string, SectionId> = {
  identity: "profile",
  fact: "profile",
  preference: "preferences",
  mistake: "avoid",
  skill: "techniques",
  project: "context",
  context: "context",
  note: "context",
};

/** Hints a note may carry: a section, or one of the memory categories. */
export const CATEGORY_HINTS = [...SECTION_IDS, "identity", "fact", "preference", "mistake", "skill", "project", "note"] as const;
export type CategoryHint = (typeof CATEGORY_HINTS)[number];

/** Where a note without a usable hint goes. */
export const DEFAULT_SECTION: SectionId = "context";

export interface ColdDocument {
  /** Lines before the first heading, kept as they are. */
  preamble: string[];
  sections: Record<SectionId, string[]>;
  /** Sections under headings edgemind does not know, kept as they are, in order. */
  other: { heading: string; lines: string[] }[];
  /** A known section's heading as a person wrote it, when it is not one of edgemind's own. */
  headings: Partial<Record<SectionId, string>>;
}

export type DocumentLocale = "en" | "ru";

export const documentLocale = (locale: string): DocumentLocale => (locale === "ru" ? "ru" : "en");

/** The section a category hint names; unknown or missing hints land in the default section. */
export function sectionForHint(hint: string | null | undefined): SectionId {
  if (!hint) return DEFAULT_SECTION;
  if ((SECTION_IDS as readonly string[]).includes(hint)) return hint as SectionId;
  return CATEGORY_SECTIONS[hint] ?? DEFAULT_SECTION;
}

/** The heading of a section in the document's language. */
export const headingOf = (id: SectionId, locale: DocumentLocale) => HEADINGS[id][locale];

const headingKey = (heading: string) => words(heading).join(" ");
const OWN_HEADINGS = new Map<string, SectionId>(SECTION_IDS.flatMap((id) => [[HEADINGS[id].en, id] as const, [HEADINGS[id].ru, id] as const]));
const SECTION_BY_HEADING = new Map<string, SectionId>(
  SECTION_IDS.flatMap((id) => [
    [headingKey(HEADINGS[id].en), id],
    [headingKey(HEADINGS[id].ru), id],
  ]),
);

const HEADING_LINE = /^#{1,6}\s+(.+?)\s*#*\s*$/;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+/;

/** The words of a markdown heading line (`## Preferences` → "Preferences"); null for any other line. */
export const headingText = (line: string): string | null => HEADING_LINE.exec(line)?.[1] ?? null;

/** Reads a cold document back into sections. Text it does not understand is kept, not dropped. */
export function parseDocument(text: string): ColdDocument {
  const doc = emptyDocument();
  let target: string[] = doc.preamble;
  for (const raw of text.split(/\r?\n/)) {
    const heading = headingText(raw);
    if (heading !== null) {
      const id = SECTION_BY_HEADING.get(headingKey(heading));
      if (id) {
        target = doc.sections[id];
        if (!OWN_HEADINGS.has(heading) && doc.headings[id] === undefined) doc.headings[id] = heading;
      } else {
        const other = { heading, lines: [] };
        doc.other.push(other);
        target = other.lines;
      }
      continue;
    }
    const line = target === doc.preamble ? raw.trimEnd() : raw.replace(BULLET, "").trim();
    if (line) target.push(line);
  }
  return doc;
}

/**
 * Writes the document with the language's headings (or the person's own, where they wrote one),
 * one "- fact" line per fact, empty sections left out.
 */
export function renderDocument(doc: ColdDocument, locale: DocumentLocale): string {
  const blocks: string[] = [];
  if (doc.preamble.length > 0) blocks.push(doc.preamble.join("\n"));
  for (const id of SECTION_IDS) {
    const facts = doc.sections[id];
    if (facts.length > 0) blocks.push([`## ${doc.headings[id] ?? headingOf(id, locale)}`, ...facts.map((f) => `- ${f}`)].join("\n"));
  }
  for (const other of doc.other) {
    blocks.push([`## ${other.heading}`, ...other.lines.map((f) => `- ${f}`)].join("\n"));
  }
  return blocks.length > 0 ? blocks.join("\n\n") + "\n" : "";
}

export function emptyDocument(): ColdDocument {
  return {
    preamble: [],
    sections: { profile: [], preferences: [], avoid: [], techniques: [], context: [], glossary: [] },
    other: [],
    headings: {},
  };
}

/**
 * The document as a reader in `locale` sees it: edgemind's own headings said in their language,
 * everything else (facts, a person's own headings) exactly as written.
 */
export function localizeHeadings(text: string, locale: DocumentLocale): string {
  return text
    .split("\n")
    .map((line) => {
      const heading = /^(#{1,6})\s+(.+?)\s*$/.exec(line);
      const id = heading ? OWN_HEADINGS.get(heading[2]!) : undefined;
      return id ? `${heading![1]} ${headingOf(id, locale)}` : line;
    })
    .join("\n");
}

/** A fact as one trimmed line: a fact never spans lines in the document. */
export const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** What two facts share when they differ only in case, ё/е, spacing or punctuation. */
export const factKey = (text: string) => words(normalizeText(text)).join(" ");

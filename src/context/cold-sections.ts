import type { TokenCounter } from "../llm/tokens";
import { parseDocument, SECTION_IDS } from "../notes/document";
import { asData } from "./items";
import { type Fitter, type PackedItem, termOverlap } from "./packing";

// Cold memory goes into the context a section at a time: those sharing words with the message
// among what is relevant, the rest after everything else, each without the facts already taken.

export interface ColdSection {
  ref: string;
  heading: string;
  lines: string[];
}

/** The sections of cold memory, each with its facts. */
export function coldSections(text: string): ColdSection[] {
  const doc = parseDocument(text);
  const sections = [
    ...SECTION_IDS.map((id) => ({ ref: `cold:${id}`, heading: id as string, lines: doc.sections[id] })),
    ...doc.other.map((o, i) => ({ ref: `cold:other-${i + 1}`, heading: o.heading, lines: o.lines })),
  ];
  if (doc.preamble.length > 0) sections.unshift({ ref: "cold:preamble", heading: "", lines: doc.preamble });
  return sections.filter((s) => s.lines.length > 0);
}

/** The sections sharing words with the message, the most shared first; none without a message. */
export function sectionsSharingWords(sections: readonly ColdSection[], q: string | null): ColdSection[] {
  if (!q) return [];
  return sections
    .map((section) => ({ section, overlap: termOverlap(q, section.lines.join(" ")) }))
    .filter((s) => s.overlap > 0)
    .sort((a, b) => b.overlap - a.overlap)
    .map((s) => s.section);
}

/** A cold memory section as one item, without the facts already taken; null when none is left. */
export function coldItem(section: ColdSection, fitter: Fitter, count: TokenCounter): PackedItem | null {
  const lines = section.lines.filter((l) => !fitter.has(l));
  if (lines.length === 0) return null;
  const body = [section.heading && `### ${asData(section.heading)}`, ...lines.map((l) => `- ${asData(l)}`)].filter(Boolean).join("\n");
  return { part: "cold", ref: section.ref, verified: null, text: body, tokens: count(body) + 1, included: false, reason: "fits" };
}

import type { TokenCounter } from "../llm/tokens";
import { stem, words } from "../memory/normalize";
import type { Memory } from "../memory/rows";
import { dayOf } from "../memory/time";
import { oneLine } from "../notes/document";
import type { Note } from "../notes/notes";
import type { PackingKnobs } from "./knobs";
import type { PackedItem, SharedLine } from "./packing";
import { isCut, messageStems, trimToMatches } from "./trim";

// How a memory or a note is written into the memory block: one line, never able to close the
// block or start a heading of its own; under its tags (the day it was said, its project) or its
// category, said once as a heading over the items sharing it.

/** How items are written: tokens counted, verified ones marked or not, labels grouped or not, long texts cut to the message's stems. */
export interface Render {
  count: TokenCounter;
  budget: number;
  knobs: Pick<PackingKnobs, "markVerified" | "groupLabels" | "tagHeadings" | "cut" | "dates">;
  stems: ReadonlySet<string>;
  /** The instruction line saying what each mark means, with its tokens; none when they are not paid for by the items shown. */
  notices: Record<Mark, SharedLine> | null;
}

/** What an item may be marked with: `[unverified]`, `[replaced …]` (a later statement replaced it), or `…` where a cut left words out. */
export type Mark = "unverified" | "replaced" | "cut";

/** The line of the instructions that says what a mark means, given only when an item shown carries it. */
export const MARK_NOTICES: Record<Mark, string> = {
  unverified: "[unverified] items were not confirmed by the person and may be wrong.",
  replaced: "[replaced <day>] items held until a later item replaced them on that day.",
  cut: "… marks what was left out.",
};

/** How items are written for the message `q` at this budget: each mark's notice paid by the first item carrying it when the headings are lazy. */
export function createRender(count: TokenCounter, budget: number, q: string | null, knobs: PackingKnobs): Render {
  const notices = Object.fromEntries(
    Object.entries(MARK_NOTICES).map(([mark, text]) => [mark, { text, tokens: count(text) + 1 }]), // the line's newline too
  ) as Record<Mark, SharedLine>;
  return { count, budget, knobs, stems: messageStems(q), notices: knobs.instructions && knobs.lazyHeadings ? notices : null };
}

/** An item's mark: `[unverified]` always, `[verified]` only when asked for. */
const marker = (render: Render, verified: boolean) => (verified ? (render.knobs.markVerified ? "[verified] " : "") : "[unverified] ");

/** A memory, note or line of context as an item: the fact it states, the notices its marks need, the heading it is listed under. */
interface Stated {
  part: "search" | "recall";
  ref: string;
  verified: boolean;
  text: string;
  fact: string;
  marks: Record<Mark, boolean>;
  /** Listed under it when labels are grouped. */
  heading?: string;
  /** Its tokens, when already counted. */
  tokens?: number;
  /** When it was stated (ISO 8601): its day is said over it under its heading. */
  statedAt?: string;
}

function statedItem(s: Stated, render: Render): PackedItem {
  const { part, ref, verified, text, fact } = s;
  const lines = render.notices;
  const notices = lines === null ? [] : (["unverified", "replaced", "cut"] as const).filter((m) => s.marks[m]).map((m) => lines[m]);
  const heading = s.heading !== undefined && render.knobs.groupLabels ? { text: s.heading, tokens: render.count(s.heading) + 1 } : undefined;
  const day = heading && render.knobs.dates && s.statedAt !== undefined ? dayLine(s.statedAt, heading.text, render) : undefined;
  return {
    ...{ part, ref, verified, text, tokens: s.tokens ?? render.count(text) + 1, included: false, reason: "fits", fact },
    ...(notices.length > 0 ? { notices } : {}),
    ...(heading === undefined ? {} : { heading }),
    ...(day === undefined ? {} : { day }),
  };
}

/** Text in lower case with every word cut to three letters: "8 June 2023" and "8 Jun 2023" read alike. */
const monthsShort = (text: string) => text.toLowerCase().replace(/(?<=\b[a-z]{3})[a-z]+/g, "");

/**
 * The line saying the day items under a heading were stated, with its tokens and the time it
 * orders them by; none when the heading says that day already (a dated chat's tag).
 */
function dayLine(statedAt: string, heading: string, render: Render): (SharedLine & { at: string }) | undefined {
  const day = dayOf(statedAt);
  if (monthsShort(heading) === monthsShort(`### ${day}`)) return undefined;
  const text = `#### ${day}`;
  // Ordered by the day alone: within a day the items keep the order they came in.
  return { text, tokens: render.count(text) + 1, at: statedAt.slice(0, 10) };
}

/**
 * Stored text as one line that cannot close the data block, open another or start an item or
 * heading of its own: every angle bracket becomes its look-alike, every line break a space.
 */
export function asData(text: string): string {
  return oneLine(text).replace(/</g, "‹").replace(/>/g, "›");
}

const DIGIT = /\p{N}/u;

/**
 * Whether a key tells the model more than the text it labels: a word of it (not an id such as
 * D1:3 or 2024-05) that the text does not hold.
 */
function keyAddsWords(key: string, text: string): boolean {
  const said = new Set(words(text).map(stem));
  return words(key).some((w) => !DIGIT.test(w) && !said.has(stem(w)));
}

/** The text as shown: whole, or cut to the message's sentences when the rule says it is long. */
function shown(text: string, render: Render): string {
  const rule = render.knobs.cut;
  if (render.stems.size === 0 || !isCut(rule, text, render.count(text), render.budget)) return text;
  return trimToMatches(text, render.stems, rule !== "always");
}

/** The heading a memory is listed under: its tags when it has any and they are asked for, else its category. */
function headingOf(m: Memory, render: Render): string {
  return `### ${asData(render.knobs.tagHeadings && m.tags.length > 0 ? m.tags.join(", ") : m.category)}`;
}

/**
 * A memory as an item: under its heading, its day said over it; a replaced one marked with the
 * day it was replaced. Without grouped labels its day is on its own line.
 */
export function memoryItem(part: "search" | "recall", m: Memory, render: Render): PackedItem {
  const said = shown(m.content, render);
  const fact = asData(said);
  const dated = render.knobs.dates ? ` (${dayOf(m.observed_at)})` : "";
  const label = !render.knobs.groupLabels
    ? `${asData(m.category)}/${asData(m.key)}${dated}: `
    : keyAddsWords(m.key, fact)
      ? `${asData(m.key)}: `
      : "";
  const replaced = m.valid_until === null ? "" : `[replaced ${dayOf(m.valid_until)}] `;
  const text = `- ${marker(render, m.verified)}${replaced}${label}${fact}`;
  const marks = { unverified: !m.verified, replaced: replaced !== "", cut: said !== m.content };
  const heading = headingOf(m, render);
  return statedItem({ part, ref: m.id, verified: m.verified, text, fact, marks, heading, statedAt: m.observed_at }, render);
}

/** A line of context longer than this share of the budget is left out rather than cut. */
const NEIGHBOUR_SHARE = 1 / 16;

/**
 * A search hit's context (the dialogue said around it, one turn a line) as items of their own,
 * under the hit's heading, each marked as the hit is. A line already taken is folded like any
 * repeated fact, and a later hit repeating one of them is folded into it.
 */
export function neighbourItems(m: Memory, render: Render): PackedItem[] {
  const lines = (m.context ?? "").split("\n").map(asData).filter((l) => l !== "");
  const heading = headingOf(m, render);
  const marks = { unverified: !m.verified, replaced: false, cut: false };
  return lines.flatMap((line, i) => {
    const text = `- ${marker(render, m.verified)}${line}`;
    const tokens = render.count(text) + 1;
    if (tokens > render.budget * NEIGHBOUR_SHARE) return [];
    const ref = `${m.id}:context:${i + 1}`;
    return [statedItem({ part: "search", ref, verified: m.verified, text, tokens, fact: line, marks, heading, statedAt: m.observed_at }, render)];
  });
}

export function noteItem(n: Note, render: Render): PackedItem {
  const verified = n.source === "user";
  const said = shown(n.text, render);
  const fact = asData(said);
  const text = `- ${marker(render, verified)}note: ${fact}`;
  return statedItem({ part: "search", ref: n.id, verified, text, fact, marks: { unverified: !verified, replaced: false, cut: said !== n.text } }, render);
}

import type { z } from "zod";
import { queryTerms, stem, words } from "../memory/normalize";
import { factKey } from "../notes/document";
import type { CONTEXT_PARTS, CONTEXT_REASONS, contextItemRecord } from "./fields";

// How the context assembly packs items into its budget: first offered, first taken while they
// fit; a fact already taken (the same words, or nearly) is folded into the earlier item.

export type ContextPart = (typeof CONTEXT_PARTS)[number];
export type ContextReason = (typeof CONTEXT_REASONS)[number];
/** One item offered to the context: its one shape is fields.ts'. */
export type ContextItem = z.output<typeof contextItemRecord>;

/** A line said once however many items need it (a heading, a line of the instructions), and its tokens. */
export interface SharedLine {
  text: string;
  tokens: number;
}

/** An item as the packing handles it: the part shown, and what folding and paying for shared lines read. */
export interface PackedItem extends ContextItem {
  /** The fact a memory or note item states, without its mark and label: what repeats are compared on (its text when absent). */
  fact?: string;
  /** The heading it is listed under (a memory's tags or category): the first item taken under it pays for it. */
  heading?: SharedLine;
  /**
   * The day a memory was stated, said once over the items of its heading stated that day (the
   * first item taken pays for it), and that day (YYYY-MM-DD) to order them by: the newest first.
   */
  day?: SharedLine & { at: string };
  /** The lines of the instructions saying what its marks mean: the first item taken needing one pays for it, so a mark no item shows costs nothing. */
  notices?: SharedLine[];
}

const factOf = (item: PackedItem) => item.fact ?? item.text;

/** An item as its caller sees it, without what only the packing reads. */
export function shownPart(item: PackedItem): ContextItem {
  const { part, ref, verified, text, tokens, included, reason, duplicate_of } = item;
  return { part, ref, verified, text, tokens, included, reason, ...(duplicate_of === undefined ? {} : { duplicate_of }) };
}

// Two facts sharing this share of their distinct stems say the same thing.
const NEAR_DUPLICATE = 0.8;
// Shorter facts are compared whole only: a few shared words prove nothing.
const MIN_STEMS_FOR_NEAR = 4;

const stemSet = (text: string) => new Set(words(text).map(stem));

function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * A part's items as lines: those under no heading first, then each heading (in the order its
 * first item came) over its items, so a heading is said once however many items share it. Under
 * a heading, items go by the day they were stated, newest first (in the order they came within
 * a day), each day said once over its items.
 */
export function groupLines(items: readonly PackedItem[]): string[] {
  const groups = new Map<string, PackedItem[]>();
  const loose: string[] = [];
  for (const item of items) {
    const heading = item.heading?.text;
    if (heading === undefined) loose.push(item.text);
    else groups.set(heading, [...(groups.get(heading) ?? []), item]);
  }
  return [...loose, ...[...groups].flatMap(([heading, grouped]) => [heading, ...datedLines(grouped)])];
}

/**
 * Items of one heading, newest day first, each day's line over its items. Items with no day line
 * (undated, or on the day the heading names) come first, right under the heading, in their order.
 */
function datedLines(items: PackedItem[]): string[] {
  const at = (item: PackedItem) => item.day?.at ?? "9999-12-31";
  const byDay = [...items].sort((a, b) => (at(a) === at(b) ? 0 : at(a) < at(b) ? 1 : -1));
  const lines: string[] = [];
  let day: string | undefined;
  for (const item of byDay) {
    if (item.day !== undefined && item.day.text !== day) lines.push(item.day.text);
    day = item.day?.text;
    lines.push(item.text);
  }
  return lines;
}

/** Takes items while they fit, first offered first; a repeated or nearly repeated fact is folded. */
export class Fitter {
  readonly items: PackedItem[] = [];
  private readonly seen = new Map<string, string>();
  private readonly facts: { stems: Set<string>; ref: string }[] = [];
  private readonly headings = new Set<string>();
  /** The instruction lines some item taken needed (its `notices`). */
  readonly notices = new Set<string>();
  used: number;

  /**
   * `overhead`: tokens spent before any item (instructions, the block's frame). `partHeadings`:
   * the tokens of each part's heading, paid by the first item taken in that part, so a part
   * left empty costs nothing.
   */
  constructor(
    readonly budget: number,
    overhead: number,
    private readonly partHeadings: Partial<Record<ContextPart, number>> = {},
    private readonly fold = true,
  ) {
    this.used = overhead;
  }

  /** Offers an item, to be taken while the total stays within `limit` (the budget unless given). */
  offer(item: PackedItem, forced?: "latest_message", limit = this.budget): void {
    this.items.push(item);
    const earlier = this.repeats(item);
    if (earlier !== undefined) {
      Object.assign(item, { included: false, reason: "duplicate", duplicate_of: earlier });
      return;
    }
    if (forced || this.used + this.cost(item) <= limit) this.take(item, forced ?? "fits");
    else Object.assign(item, { included: false, reason: "over_budget" });
  }

  /** Drops an item without looking at its cost (it would break the dialogue's order). */
  drop(item: PackedItem): void {
    this.items.push(Object.assign(item, { included: false, reason: "over_budget" }));
  }

  /** An item dropped for its share gets a second chance with what memory left over. */
  retry(item: PackedItem): boolean {
    if (this.used + this.cost(item) > this.budget) return false;
    this.take(item, "fits");
    return true;
  }

  /** Whether a fact of this text was already taken. */
  has(text: string): boolean {
    return this.seen.has(`fact:${factKey(text)}`);
  }

  /** Records the facts of a taken cold memory section, so memories repeating them are folded. */
  remember(lines: string[], ref: string): void {
    for (const line of lines) this.seen.set(`fact:${factKey(line)}`, ref);
  }

  private repeats(item: PackedItem): string | undefined {
    if (item.part === "window" || item.part === "cold") return undefined;
    if (!this.fold) return this.seen.get(`memory:${item.ref}`);
    const exact = this.seen.get(`fact:${factKey(factOf(item))}`) ?? this.seen.get(`memory:${item.ref}`);
    if (exact !== undefined) return exact;
    const stems = stemSet(factOf(item));
    if (stems.size < MIN_STEMS_FOR_NEAR) return undefined;
    return this.facts.find((f) => f.stems.size >= MIN_STEMS_FOR_NEAR && similarity(stems, f.stems) >= NEAR_DUPLICATE)?.ref;
  }

  /** An item's tokens, with its headings', day's and notices' when it is the first taken needing them. */
  private cost(item: PackedItem): number {
    const heading = item.heading;
    const group = heading && !this.headings.has(`${item.part}:${heading.text}`) ? heading.tokens : 0;
    const day = heading && item.day && !this.headings.has(`${item.part}:${heading.text}:${item.day.text}`) ? item.day.tokens : 0;
    const part = this.headings.has(item.part) ? 0 : (this.partHeadings[item.part] ?? 0);
    const notices = (item.notices ?? []).reduce((n, notice) => n + (this.notices.has(notice.text) ? 0 : notice.tokens), 0);
    return item.tokens + group + day + part + notices;
  }

  private take(item: PackedItem, reason: ContextReason): void {
    const heading = item.heading;
    Object.assign(item, { included: true, reason, tokens: this.cost(item) });
    this.used += item.tokens;
    this.headings.add(item.part);
    if (heading) this.headings.add(`${item.part}:${heading.text}`);
    if (heading && item.day) this.headings.add(`${item.part}:${heading.text}:${item.day.text}`);
    for (const notice of item.notices ?? []) this.notices.add(notice.text);
    if (item.part === "window" || item.part === "cold") return;
    this.seen.set(`fact:${factKey(factOf(item))}`, item.ref);
    if (item.ref.startsWith("mem_")) this.seen.set(`memory:${item.ref}`, item.ref);
    this.facts.push({ stems: stemSet(factOf(item)), ref: item.ref });
  }
}

/** Share of the query's terms found in a text (0 when the query has none). */
export function termOverlap(query: string, text: string): number {
  const terms = queryTerms(query);
  if (terms.length === 0) return 0;
  const stems = stemSet(text);
  return terms.filter((t) => stems.has(t)).length / terms.length;
}

import type { z } from "zod";
import type { CONTEXT_PARTS, CONTEXT_REASONS, contextItemRecord } from "./fields";
import { queryTerms, stem, words } from "../memory/normalize";
import { factKey } from "../notes/document";

// How the context assembly packs items into its budget: first offered, first taken while they
// fit; a fact already taken (the same words, or nearly) is folded into the earlier item.

export type ContextPart = (typeof CONTEXT_PARTS)[number];
export type ContextReason = (typeof CONTEXT_REASONS)[number];
/** One item offered to the context: its one shape is fields.ts'. */
export type ContextItem = z.output<typeof contextItemRecord>;

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

// The fact each memory or note item states, without its mark and label.
const FACTS = new WeakMap<ContextItem, string>();

/** Records the fact an item states, which is what repeats are compared on. */
export function stating<T extends ContextItem>(item: T, fact: string): T {
  FACTS.set(item, fact);
  return item;
}

const factOf = (item: ContextItem) => FACTS.get(item) ?? item.text;

/** A heading said once over the items grouped under it (a memory's category), and its tokens. */
export interface GroupHeading {
  text: string;
  tokens: number;
}

const HEADINGS = new WeakMap<ContextItem, GroupHeading>();

/** Puts an item under a heading: the first item taken under it pays for the heading. */
export function under<T extends ContextItem>(item: T, heading: GroupHeading): T {
  HEADINGS.set(item, heading);
  return item;
}

const NOTICES = new WeakMap<ContextItem, GroupHeading[]>();

/**
 * Says that an item needs a line of the instructions (what a mark it carries means): the first
 * item taken that needs it pays for the line, so a mark no item shows costs nothing.
 */
export function needing<T extends ContextItem>(item: T, notice: GroupHeading): T {
  NOTICES.set(item, [...(NOTICES.get(item) ?? []), notice]);
  return item;
}

/** The heading an item is said under, if any. */
export const headingOf = (item: ContextItem): string | undefined => HEADINGS.get(item)?.text;

/**
 * A part's items as lines: those under no heading first, then each heading (in the order its
 * first item came) over its items, so a heading is said once however many items share it.
 */
export function groupLines(items: readonly ContextItem[]): string[] {
  const groups = new Map<string, string[]>();
  const loose: string[] = [];
  for (const item of items) {
    const heading = headingOf(item);
    if (heading === undefined) loose.push(item.text);
    else groups.set(heading, [...(groups.get(heading) ?? []), item.text]);
  }
  return [...loose, ...[...groups].flatMap(([heading, lines]) => [heading, ...lines])];
}

/** Takes items while they fit, first offered first; a repeated or nearly repeated fact is folded. */
export class Fitter {
  readonly items: ContextItem[] = [];
  private readonly seen = new Map<string, string>();
  private readonly facts: { stems: Set<string>; ref: string }[] = [];
  private readonly headings = new Set<string>();
  /** The instruction lines some item taken needed (`needing`). */
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
  offer(item: ContextItem, forced?: "latest_message", limit = this.budget): void {
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
  drop(item: ContextItem): void {
    this.items.push(Object.assign(item, { included: false, reason: "over_budget" }));
  }

  /** An item dropped for its share gets a second chance with what memory left over. */
  retry(item: ContextItem): boolean {
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

  private repeats(item: ContextItem): string | undefined {
    if (item.part === "window" || item.part === "cold") return undefined;
    if (!this.fold) return this.seen.get(`memory:${item.ref}`);
    const exact = this.seen.get(`fact:${factKey(factOf(item))}`) ?? this.seen.get(`memory:${item.ref}`);
    if (exact !== undefined) return exact;
    const stems = stemSet(factOf(item));
    if (stems.size < MIN_STEMS_FOR_NEAR) return undefined;
    return this.facts.find((f) => f.stems.size >= MIN_STEMS_FOR_NEAR && similarity(stems, f.stems) >= NEAR_DUPLICATE)?.ref;
  }

  /** An item's tokens, with its headings' and notices' when it is the first taken needing them. */
  private cost(item: ContextItem): number {
    const heading = HEADINGS.get(item);
    const group = heading && !this.headings.has(`${item.part}:${heading.text}`) ? heading.tokens : 0;
    const part = this.headings.has(item.part) ? 0 : (this.partHeadings[item.part] ?? 0);
    const notices = (NOTICES.get(item) ?? []).reduce((n, notice) => n + (this.notices.has(notice.text) ? 0 : notice.tokens), 0);
    return item.tokens + group + part + notices;
  }

  private take(item: ContextItem, reason: ContextReason): void {
    const heading = HEADINGS.get(item);
    Object.assign(item, { included: true, reason, tokens: this.cost(item) });
    this.used += item.tokens;
    this.headings.add(item.part);
    if (heading) this.headings.add(`${item.part}:${heading.text}`);
    for (const notice of NOTICES.get(item) ?? []) this.notices.add(notice.text);
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

import type { z } from "zod";
import { loadTokenCounter, type TokenCounter } from "../llm/tokens";
import { reciprocalRankFusion } from "../memory/fusion";
import { retrieveMemories } from "../memory/hybrid-search";
import { queryMeaning } from "../memory/query-meaning";
import { recallMemories } from "../memory/recall";
import { asksAboutTime, type TimeView } from "../memory/time";
import { getCold } from "../notes/cold-store";
import { retrieveNotes } from "../notes/hybrid-search";
import type { Message } from "../sessions/rows";
import { type Dialogue, readDialogue } from "../sessions/windows";
import type { MindContext } from "../tenancy/mind-context";
import { type ColdSection, coldItem, coldSections, sectionsSharingWords } from "./cold-sections";
import type { assembledContextRecord } from "./fields";
import { createRender, memoryItem, neighbourItems, noteItem, type Render } from "./items";
import { type PackingKnobs, packingKnobs } from "./knobs";
import { type Fitter, type PackedItem, shownPart } from "./packing";
import { liftBySharedTags, splitWeak } from "./rank";
import { fitterFor, systemText } from "./system-text";

// Context assembly: what the model is given for one turn. Memory goes into one delimited data
// block (never read as instructions, unverified items marked); the dialogue is the session's
// LLM window. Everything is deduplicated and fitted to a token budget, with a breakdown.

export const DEFAULT_CONTEXT_TOKENS = 4000;
export const MIN_CONTEXT_TOKENS = 300;
export const MAX_CONTEXT_TOKENS = 32_000;
const CONTEXT_RECALL_LIMIT = 50;
const NOTE_LIMIT = 20;
/** Search hits fetched: about as many short facts as the budget holds. */
const searchLimit = (budget: number, knobs: PackingKnobs) => Math.min(knobs.maxHits, Math.max(10, Math.ceil(budget / knobs.tokensPerHit)));
/** Share of the budget the dialogue may take before memory is added; the rest goes to it after. */
const WINDOW_SHARE = 0.6;
/** Share of the budget kept for high and critical memories while relevant ones are packed. */
const PINNED_SHARE = 0.25;
const PINNED = new Set(["high", "critical"]);

export interface ContextRequest {
  /** The session whose LLM window is the dialogue; none: memory only. */
  session_id?: string | null;
  /** The current message: search looks for memory related to it. */
  q?: string | null;
  max_tokens?: number;
  /** ISO 8601: the memories valid then instead of now (memory/time.ts). */
  as_of?: string;
  /** Replaced memories too, each marked with the day it was replaced. */
  include_superseded?: boolean;
}

/** What the model is given for one turn: its one shape is fields.ts'. */
export type AssembledContext = z.output<typeof assembledContextRecord>;

export const EPHEMERAL_RULE =
  "Ephemeral tool output is never given to the model; people see it in the ui channel. A message is about that output only if it carries the same tool; after ephemeral_ttl messages without it, when another tool's output arrives, or when Done? is answered yes, the output is deleted.";

/**
 * Builds the model's context for one turn: the session's LLM window; then what is relevant to
 * `q` (memory and note search hits, cold memory sections sharing its words) merged by rank, the
 * leading hits each followed by what was said around it, the other hits' after them all, and hits
 * found by little more than words most memories hold last;
 * then high and critical memories; then, as far as the budget leaves, recall by recency and
 * the rest of cold memory. Near-duplicates are folded; everything fits `max_tokens`.
 */
export function assembleContext(mindContext: MindContext, request: ContextRequest, given: GivenDialogue = {}): Promise<AssembledContext> {
  return assembleContextWith(mindContext, request, {}, given);
}

/**
 * `assembleContext` with the packing departing from the product's in the ways given: the seam
 * through which the benchmark's ablation measures each choice alone. No front calls it.
 */
export async function assembleContextWith(
  mindContext: MindContext,
  request: ContextRequest,
  departures: Partial<PackingKnobs>,
  given: GivenDialogue = {},
): Promise<AssembledContext> {
  const knobs = packingKnobs(departures);
  const budget = request.max_tokens ?? DEFAULT_CONTEXT_TOKENS;
  const q = request.q?.trim() || null;
  const sessionId = request.session_id ?? null;
  const count = await loadTokenCounter();
  const render = createRender(count, budget, q, knobs);
  const view = { asOf: request.as_of, includeSuperseded: request.include_superseded };
  const found = await gather(mindContext, { q, sessionId, budget, knobs, view }, given);
  const packer: Packer = { fitter: fitterFor(budget, knobs, count), render, knobs, budget, count };
  // The dialogue first, up to its share; then memory; then older dialogue with what memory left.
  const dialogue = offerDialogue(packer, found.window);
  offerMemory(packer, found, q);
  for (const item of dialogue) if (!item.included && !packer.fitter.retry(item)) break;
  const system = systemText(packer.fitter, knobs);
  const prompt = promptOf(packer.fitter);
  return {
    session_id: sessionId,
    q,
    budget,
    tokens: count(system) + count(prompt),
    parts: packer.fitter.items.map(shownPart),
    system,
    prompt,
    ephemeral_left_out: { messages: found.ephemeral, rule: EPHEMERAL_RULE },
    retrieval: found.memorySearch.retrieval === "hybrid" || found.noteSearch.retrieval === "hybrid" ? "hybrid" : "full_text",
  };
}

/** What one assembly packs with: the fitter taking items, how items are written, the knobs, the budget. */
interface Packer {
  fitter: Fitter;
  render: Render;
  knobs: PackingKnobs;
  budget: number;
  count: TokenCounter;
}

/** What the context is assembled from, all read at once: the dialogue, recall, search hits for `q`, cold memory. */
async function gather(
  mindContext: MindContext,
  { q, sessionId, budget, knobs, view }: { q: string | null; sessionId: string | null; budget: number; knobs: PackingKnobs; view: TimeView },
  given: GivenDialogue,
) {
  const withContext = knobs.tokensPerNeighbours > 0;
  // Memory and note search share the message's embedding.
  const meaning = queryMeaning(mindContext, q ?? "", ["memory", "note"]);
  const [{ window, ephemeral }, recall, memorySearch, noteSearch, cold] = await Promise.all([
    sessionId ? dialogueOf(mindContext, sessionId, given) : Promise.resolve(NO_DIALOGUE),
    recallMemories(mindContext, { limit: CONTEXT_RECALL_LIMIT, ...view }),
    q
      ? retrieveMemories(mindContext, { q, limit: searchLimit(budget, knobs), withContext, feedback: knobs.feedback, ...timeOf(q, view) }, meaning)
      : Promise.resolve({ hits: [], retrieval: "full_text" as const }),
    q ? retrieveNotes(mindContext, { q, limit: NOTE_LIMIT }, meaning) : Promise.resolve({ hits: [], retrieval: "full_text" as const }),
    getCold(mindContext),
  ]);
  return { window, ephemeral, recall, memorySearch, noteSearch, cold };
}

type Found = Awaited<ReturnType<typeof gather>>;

/** The read's time for search: a question about time (when, how long ago, which came first) is given replaced statements too, marked, with their dates. */
const timeOf = (q: string, view: TimeView): TimeView => ({ ...view, includeSuperseded: view.includeSuperseded || asksAboutTime(q) });

/**
 * The dialogue, newest first, offered up to its share of the budget (the latest message always).
 * It stays contiguous: after one message is dropped, so are older ones.
 */
function offerDialogue({ fitter, count, budget }: Packer, window: readonly Message[]): PackedItem[] {
  const items = window.map((m) => messageItem(m, count)).reverse();
  let contiguous = true;
  for (const [i, item] of items.entries()) {
    if (contiguous) fitter.offer(item, i === 0 ? "latest_message" : undefined, budget * WINDOW_SHARE);
    else fitter.drop(item);
    contiguous = item.included;
  }
  return items;
}

/**
 * Memory, in order: what is relevant to the message (within what high and critical memories are
 * kept), then those high and critical memories, then recall by recency, then the rest of cold memory.
 */
function offerMemory(packer: Packer, found: Found, q: string | null): void {
  const { fitter, render, budget } = packer;
  const sections = coldSections(found.cold.text);
  const relevantSections = sectionsSharingWords(sections, q);
  const pinned = found.recall.memories.filter((m) => PINNED.has(m.priority)).map((m) => memoryItem("recall", m, render));
  const rest = found.recall.memories.filter((m) => !PINNED.has(m.priority)).map((m) => memoryItem("recall", m, render));
  const reserved = Math.min(pinned.reduce((n, i) => n + i.tokens, 0), budget * PINNED_SHARE);
  offerRelevant(packer, found, relevantSections, budget - reserved);
  for (const item of pinned) fitter.offer(item);
  for (const item of rest) fitter.offer(item);
  for (const section of sections.filter((s) => !relevantSections.includes(s))) offerCandidate(packer, section);
}

/** How many leading memory hits bring what was said around them: one per `tokensPerNeighbours` budget tokens beyond `neighboursFrom`. */
const leadingHits = (budget: number, knobs: PackingKnobs) =>
  knobs.tokensPerNeighbours > 0 ? Math.max(0, Math.round((budget - knobs.neighboursFrom) / knobs.tokensPerNeighbours)) : 0;

/**
 * What is relevant to the message, within `limit`: memory hits, note hits and cold sections fused
 * by rank (their scores are on unrelated scales), the leading memory hits each followed by what
 * was said around it; then what was said around the other hits shown, and only then the weak hits.
 */
function offerRelevant(packer: Packer, found: Found, sections: ColdSection[], limit: number): void {
  const { knobs, render } = packer;
  const memoryHits = knobs.tagLift > 0 ? liftBySharedTags(found.memorySearch.hits, knobs.tagLift) : found.memorySearch.hits;
  const { strong, weak } = splitWeak(memoryHits, knobs.weakShare);
  const hitItems = new Map(strong.map((hit) => [hit.memory.id, memoryItem("search", hit.memory, render)]));
  const relevant = reciprocalRankFusion<PackedItem | ColdSection>(
    [[...hitItems.values()], found.noteSearch.hits.map((hit) => noteItem(hit.note, render)), sections],
    (candidate) => candidate.ref,
  ).map((f) => f.item);
  const leading = leadingHits(packer.budget, knobs);
  const around = new Map(strong.slice(0, leading).map((hit) => [hit.memory.id, neighbourItems(hit.memory, render)]));
  for (const candidate of relevant) {
    offerCandidate(packer, candidate, limit);
    const neighbours = around.get(candidate.ref);
    // A hit already shown (as another's neighbour) still brings its own.
    const shown = "included" in candidate && (candidate.included || candidate.reason === "duplicate");
    if (neighbours !== undefined && shown) for (const item of neighbours) offerCandidate(packer, item, limit);
  }
  if (knobs.weakShare <= 0) return;
  for (const hit of strong.slice(leading)) {
    const item = hitItems.get(hit.memory.id)!;
    if (item.included || item.reason === "duplicate") for (const n of neighbourItems(hit.memory, render)) offerCandidate(packer, n, limit);
  }
  for (const hit of weak) offerCandidate(packer, memoryItem("search", hit.memory, render), limit);
}

/** Offers an item, or a cold section as an item of its facts not yet taken (remembered once it is taken). */
function offerCandidate({ fitter, count }: Packer, candidate: PackedItem | ColdSection, limit?: number): void {
  if (!("lines" in candidate)) return fitter.offer(candidate, undefined, limit);
  const item = coldItem(candidate, fitter, count);
  if (item === null) return;
  fitter.offer(item, undefined, limit);
  if (item.included) fitter.remember(candidate.lines, candidate.ref);
}

/** The dialogue taken, oldest first. */
function promptOf(fitter: Fitter): string {
  const dialogue = fitter.items.filter((i) => i.part === "window" && i.included);
  return dialogue
    .sort((a, b) => Number(a.ref.slice(4)) - Number(b.ref.slice(4)))
    .map((i) => i.text)
    .join("\n");
}

/**
 * The session's dialogue already on its way (handed back by the append of the message being
 * answered, while memory is read beside it), or null: read it.
 */
export interface GivenDialogue {
  dialogue?: Promise<Dialogue | null>;
}

const NO_DIALOGUE: Dialogue = { window: [], ephemeral: 0 };

async function dialogueOf(mindContext: MindContext, sessionId: string, given: GivenDialogue): Promise<Dialogue> {
  return (await given.dialogue) ?? readDialogue(mindContext, sessionId);
}

function messageItem(m: Message, count: TokenCounter): PackedItem {
  const text = `${m.role}: ${m.content.replace(/\r?\n/g, "\n  ")}`;
  return { part: "window", ref: `msg:${m.id}`, verified: null, text, tokens: count(text) + 1, included: false, reason: "fits" };
}

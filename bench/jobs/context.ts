import { inArray } from "drizzle-orm";
import { assembleContextWith } from "../../src/context/assemble";
import type { PackingKnobs } from "../../src/context/knobs";
import { memories } from "../../src/db/schema";
import type { Deps } from "../../src/deps";
import { loadTokenCounter } from "../../src/llm/tokens";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import type { MindContext } from "../../src/tenancy/mind-context";
import { inMind } from "./bench-deps";

/** What an LLM would be handed for one question: the text, and which turns it holds. */
export interface AssembledContext {
  text: string;
  turnIds: string[];
  /** Tokens and items included per part of the assembly (search, recall, …), when it has parts. */
  parts?: Record<string, { tokens: number; items: number }>;
}

/** One way of building that context. */
export type ContextSource = (deps: Deps, scope: MindContext, question: string) => Promise<AssembledContext>;

/** A search hit as a user would hand it to a model: the whole memory, its tags beside it. */
const hitLine = (m: { content: string; tags: string[] }) => `- ${m.content} (${m.tags.join(", ")})`;

/** Hits fetched for the baseline, more than any budget here holds whole. */
const BASELINE_FETCH = 200;

/**
 * The baseline a user would otherwise write: the hits of `GET /memory/search` (`retrieveMemories`:
 * full text, fused with recall by meaning when the mind has vectors) in rank order, each whole on
 * its line, as many (k) as fit the budget together.
 */
export const topHitsWithin =
  (budget: number): ContextSource =>
  async (deps, scope, question) => {
    const count = await loadTokenCounter();
    const { hits } = await retrieveMemories(inMind(deps, scope), { q: question, limit: BASELINE_FETCH });
    const lines: string[] = [];
    const keys: string[] = [];
    let tokens = 0;
    for (const hit of hits) {
      // Lines are joined by one newline, a token of its own at most.
      const cost = count(hitLine(hit.memory)) + (lines.length > 0 ? 1 : 0);
      if (tokens + cost > budget) break;
      tokens += cost;
      lines.push(hitLine(hit.memory));
      keys.push(hit.memory.key);
    }
    while (lines.length > 0 && count(lines.join("\n")) > budget) {
      lines.pop();
      keys.pop();
    }
    return { text: lines.join("\n"), turnIds: keys };
  };

/**
 * The product's context assembly (`assembleContext`, what the bot and MCP's session_context
 * hand a model) for the question as the current message, with no session dialogue: the system
 * text with its memory block. Turns inside are the memories it included (search and recall),
 * and those folded into an item it shows.
 * `departures` from the product's packing are the ablation's (none for the product's rows).
 */
export const assembled =
  (maxTokens: number, departures: Partial<PackingKnobs> = {}): ContextSource =>
  async (deps, scope, question) => {
    const mindContext = inMind(deps, scope);
    const context = await assembleContextWith(mindContext, { q: question, max_tokens: maxTokens }, departures);
    const included = context.parts.filter((p) => p.included);
    const parts: Record<string, { tokens: number; items: number }> = {};
    for (const p of included) {
      const t = (parts[p.part] ??= { tokens: 0, items: 0 });
      t.tokens += p.tokens;
      t.items++;
    }
    // A memory folded into an item already shown (the same line) is in the text too.
    const shown = context.parts.filter((p) => p.included || p.reason === "duplicate");
    const ids = shown.filter((p) => p.part === "search" || p.part === "recall").map((p) => p.ref);
    const keys: string[] = [];
    // D1 binds at most 100 values a statement.
    for (let i = 0; i < ids.length; i += 90) {
      const rows = await mindContext.shard.select({ key: memories.key }).from(memories).where(inArray(memories.id, ids.slice(i, i + 90)));
      keys.push(...rows.map((r) => r.key));
    }
    return { text: context.system, turnIds: keys, parts };
  };

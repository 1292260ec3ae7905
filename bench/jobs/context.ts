import { inArray } from "drizzle-orm";
import type { MindContext } from "../../src/minds/context";
import { memories } from "../../src/db/schema";
import type { Deps } from "../../src/deps";
import { inMind } from "./bench-deps";
import { searchMemories } from "../../src/memory/search";
import { assembleContext, type PackingOptions } from "../../src/sessions/context";

/** What an LLM would be handed for one question: the text, and which turns it holds. */
export interface AssembledContext {
  text: string;
  turnIds: string[];
  /** Tokens and items included per part of the assembly (search, recall, …), when it has parts. */
  parts?: Record<string, { tokens: number; items: number }>;
}

/** One way of building that context. */
export type ContextSource = (deps: Deps, scope: MindContext, question: string) => Promise<AssembledContext>;

/** The top-k search hits, one line each. */
export const topSearchHits =
  (k: number): ContextSource =>
  async (deps, scope, question) => {
    const hits = await searchMemories(inMind(deps, scope), { q: question, limit: k });
    return {
      text: hits.map((h) => `- ${h.memory.content} (${h.memory.tags.join(", ")})`).join("\n"),
      turnIds: hits.map((h) => h.memory.key),
    };
  };

/**
 * The product's context assembly (`assembleContext`, what the bot and MCP's session_context
 * hand a model) for the question as the current message, with no session dialogue: the system
 * text with its memory block. Turns inside are the memories it included (search and recall).
 * `packing` departs from the product's packing defaults, for the ablation.
 */
export const assembled =
  (maxTokens: number, packing?: Partial<PackingOptions>): ContextSource =>
  async (deps, scope, question) => {
    const ctx = inMind(deps, scope);
    const context = await assembleContext(ctx, { q: question, max_tokens: maxTokens, packing });
    const included = context.parts.filter((p) => p.included);
    const parts: Record<string, { tokens: number; items: number }> = {};
    for (const p of included) {
      const t = (parts[p.part] ??= { tokens: 0, items: 0 });
      t.tokens += p.tokens;
      t.items++;
    }
    const ids = included.filter((p) => p.part === "search" || p.part === "recall").map((p) => p.ref);
    const keys: string[] = [];
    // D1 binds at most 100 values a statement.
    for (let i = 0; i < ids.length; i += 90) {
      const rows = await ctx.db.select({ key: memories.key }).from(memories).where(inArray(memories.id, ids.slice(i, i + 90)));
      keys.push(...rows.map((r) => r.key));
    }
    return { text: context.system, turnIds: keys, parts };
  };

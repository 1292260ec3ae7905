import { inArray } from "drizzle-orm";
import type { Scope } from "../../src/auth/principal";
import { memories } from "../../src/db/schema";
import type { Deps } from "../../src/deps";
import { searchMemories } from "../../src/memory/search";
import { assembleContext } from "../../src/sessions/context";

/** What an LLM would be handed for one question: the text, and which turns it holds. */
export interface AssembledContext {
  text: string;
  turnIds: string[];
}

/** One way of building that context. */
export type ContextSource = (deps: Deps, scope: Scope, question: string) => Promise<AssembledContext>;

/** The top-k search hits, one line each. */
export const topSearchHits =
  (k: number): ContextSource =>
  async (deps, scope, question) => {
    const hits = await searchMemories(deps, scope, { q: question, limit: k });
    return {
      text: hits.map((h) => `- ${h.memory.content} (${h.memory.tags.join(", ")})`).join("\n"),
      turnIds: hits.map((h) => h.memory.key),
    };
  };

/**
 * The product's context assembly (`assembleContext`, what the bot and MCP's session_context
 * hand a model) for the question as the current message, with no session dialogue: the system
 * text with its memory block. Turns inside are the memories it included (search and recall).
 */
export const assembled =
  (maxTokens: number): ContextSource =>
  async (deps, scope, question) => {
    const context = await assembleContext(deps, scope, { q: question, max_tokens: maxTokens });
    const ids = context.parts.filter((p) => p.included && (p.part === "search" || p.part === "recall")).map((p) => p.ref);
    const keys: string[] = [];
    // D1 binds at most 100 values a statement.
    for (let i = 0; i < ids.length; i += 90) {
      const rows = await deps.db.select({ key: memories.key }).from(memories).where(inArray(memories.id, ids.slice(i, i + 90)));
      keys.push(...rows.map((r) => r.key));
    }
    return { text: context.system, turnIds: keys };
  };

import type { Scope } from "../../src/auth/principal";
import type { Deps } from "../../src/deps";
import { searchMemories } from "../../src/memory/search";

/** What an LLM would be handed for one question: the text, and which turns it holds. */
export interface AssembledContext {
  text: string;
  turnIds: string[];
}

/** One way of building that context; context assembly plugs in here when it exists. */
export type ContextSource = (deps: Deps, scope: Scope, question: string) => Promise<AssembledContext>;

/** Today's context: the top-10 search hits, one line each. */
export const topSearchHits =
  (k: number): ContextSource =>
  async (deps, scope, question) => {
    const hits = await searchMemories(deps, scope, { q: question, limit: k });
    return {
      text: hits.map((h) => `- ${h.memory.content} (${h.memory.tags.join(", ")})`).join("\n"),
      turnIds: hits.map((h) => h.memory.key),
    };
  };

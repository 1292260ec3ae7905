import { and, desc, eq } from "drizzle-orm";
import { isoNow } from "../clock";
import { memories } from "../db/schema";
import { loadTokenCounter } from "../llm/tokens";
import type { MindContext } from "../tenancy/mind-context";
import { inScope, notExpired, priorityRank } from "./filters";
import { type Category, type Memory, toMemory } from "./rows";

export interface RecallOptions {
  limit: number;
  category?: Category;
  maxTokens?: number;
}

export interface Recall {
  memories: Memory[];
  text: string;
  tokens: number;
}

/**
 * The mind's unexpired memories, critical first and most recent first within a priority,
 * as Synapse's plain-text recall. With `maxTokens`, the list is cut where the text would pass it.
 */
export async function recallMemories(mindContext: MindContext, options: RecallOptions): Promise<Recall> {
  const { scope } = mindContext;
  const mindName = mindContext.mind.name;
  const rows = await mindContext.shard
    .select()
    .from(memories)
    .where(and(inScope(scope), notExpired(isoNow(mindContext.clock)), options.category && eq(memories.category, options.category)))
    .orderBy(desc(priorityRank), desc(memories.updatedAt), desc(memories.id))
    .limit(options.limit);
  const countTokens = await loadTokenCounter();
  let chosen = rows.map(toMemory);

  if (options.maxTokens !== undefined) {
    const budget = options.maxTokens;
    let used = countTokens(formatHeader(mindName, chosen));
    const fitting: Memory[] = [];
    for (const [i, memory] of chosen.entries()) {
      used += countTokens(formatBlock(memory, i) + "\n\n");
      if (used > budget) break;
      fitting.push(memory);
    }
    chosen = fitting;
    // Token counts of parts need not add up exactly: trim until the whole text fits.
    while (chosen.length > 0 && countTokens(formatRecall(mindName, chosen)) > budget) chosen = chosen.slice(0, -1);
  }
  const text = formatRecall(mindName, chosen);
  return { memories: chosen, text, tokens: countTokens(text) };
}

/** Synapse's recall layout: a header with counts, then one numbered block per memory. */
export function formatRecall(mindName: string, list: Memory[]): string {
  return [formatHeader(mindName, list), ...list.map(formatBlock)].join("\n\n") + "\n";
}

function formatHeader(mindName: string, list: Memory[]): string {
  const verified = list.filter((m) => m.verified).length;
  return [
    `# Memory recall: ${mindName}`,
    `# ${list.length} ${list.length === 1 ? "memory" : "memories"} (${verified} verified, ${list.length - verified} unverified)`,
  ].join("\n");
}

function formatBlock(m: Memory, index: number): string {
  return [
    `[${String(index + 1).padStart(3, "0")}] ${m.category} (${m.priority.toUpperCase()}) [${m.verified ? "verified" : "unverified"}]`,
    `key: ${m.key}`,
    `content: ${m.content}`,
    `tags: ${m.tags.join(", ")}`,
  ].join("\n");
}

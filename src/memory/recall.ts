import { and, desc, eq } from "drizzle-orm";
import { isoNow } from "../clock";
import { memories } from "../db/schema";
import { loadTokenCounter } from "../llm/tokens";
import type { MindContext } from "../tenancy/mind-context";
import { inScope, notExpired, priorityRank } from "./filters";
import { type Category, type Memory, toMemory } from "./rows";
import { dayOf, expiryTime, inTime, type TimeView } from "./time";

export interface RecallOptions extends TimeView {
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
 * The mind's unexpired memories valid now (or as `options` asks), critical first and most recent
 * first within a priority, the versions of one memory together, newest statement first, as
 * Synapse's plain-text recall with each memory's date. With `maxTokens`, the list is cut where
 * the text would pass it.
 */
export async function recallMemories(mindContext: MindContext, options: RecallOptions): Promise<Recall> {
  const { scope } = mindContext;
  const mindName = mindContext.mind.name;
  const rows = await mindContext.shard
    .select()
    .from(memories)
    .where(
      and(
        inScope(scope),
        notExpired(expiryTime(options, isoNow(mindContext.clock))),
        inTime(options),
        options.category && eq(memories.category, options.category),
      ),
    )
    .orderBy(desc(priorityRank), desc(memories.updatedAt), desc(memories.id))
    .limit(options.limit);
  const countTokens = await loadTokenCounter();
  let chosen = bySubject(rows.map(toMemory));

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
  const replaced = m.valid_until === null ? "" : ` [replaced ${dayOf(m.valid_until)}]`;
  return [
    `[${String(index + 1).padStart(3, "0")}] ${m.category} (${m.priority.toUpperCase()}) [${m.verified ? "verified" : "unverified"}]${replaced}`,
    `key: ${m.key}`,
    `content: ${m.content}`,
    `date: ${dayOf(m.observed_at)}`,
    `tags: ${m.tags.join(", ")}`,
  ].join("\n");
}

/** The memories with the versions of each (namespace, category, key) together where its first one stood, newest statement first. */
export function bySubject(list: Memory[]): Memory[] {
  const subjects = new Map<string, Memory[]>();
  for (const m of list) {
    const subject = `${m.agent}\u0000${m.category}\u0000${m.key}`;
    subjects.set(subject, [...(subjects.get(subject) ?? []), m]);
  }
  return [...subjects.values()].flatMap((versions) => versions.sort((a, b) => b.observed_at.localeCompare(a.observed_at)));
}

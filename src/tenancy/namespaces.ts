import { and, count, eq, isNull } from "drizzle-orm";
import { coldMemory, memories, notes } from "../db/schema";
import type { MindContext } from "./mind-context";
import { DEFAULT_AGENT } from "./principal";

/** One agent namespace of a mind, with what it holds. */
export interface Namespace {
  agent: string;
  memories: number;
  notes: number;
  /** 0: no cold memory written yet. */
  cold_version: number;
}

/** At most this many namespaces are listed (the busiest are not preferred: names sort). */
export const MAX_NAMESPACES = 100;

/**
 * Every namespace of the mind that holds memories, notes or cold memory, `default` always
 * first; a key scoped to one namespace sees only its own.
 */
export async function listNamespaces({ shard, scope }: MindContext): Promise<Namespace[]> {
  const only = scope.agentFilter;
  const ofMind = <T extends typeof memories | typeof notes | typeof coldMemory>(table: T) =>
    only === null ? eq(table.mindId, scope.mindId) : and(eq(table.mindId, scope.mindId), eq(table.agent, only));
  const [memoryRows, noteRows, coldRows] = await shard.batch([
    shard.select({ agent: memories.agent, n: count() }).from(memories).where(and(ofMind(memories), isNull(memories.supersededBy))).groupBy(memories.agent).orderBy(memories.agent).limit(MAX_NAMESPACES),
    shard.select({ agent: notes.agent, n: count() }).from(notes).where(ofMind(notes)).groupBy(notes.agent).orderBy(notes.agent).limit(MAX_NAMESPACES),
    shard.select({ agent: coldMemory.agent, version: coldMemory.version }).from(coldMemory).where(ofMind(coldMemory)).orderBy(coldMemory.agent).limit(MAX_NAMESPACES),
  ]);
  const found = new Map<string, Namespace>();
  const entry = (agent: string) => {
    let ns = found.get(agent);
    if (!ns) found.set(agent, (ns = { agent, memories: 0, notes: 0, cold_version: 0 }));
    return ns;
  };
  entry(only ?? DEFAULT_AGENT);
  for (const row of memoryRows) entry(row.agent).memories = row.n;
  for (const row of noteRows) entry(row.agent).notes = row.n;
  for (const row of coldRows) entry(row.agent).cold_version = row.version;
  return [...found.values()]
    .sort((a, b) => (a.agent === DEFAULT_AGENT ? -1 : b.agent === DEFAULT_AGENT ? 1 : a.agent.localeCompare(b.agent)))
    .slice(0, MAX_NAMESPACES);
}

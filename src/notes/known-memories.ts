import { z } from "zod";
import { loadTokenCounter } from "../llm/tokens";
import { STOP_WORDS, stem, words } from "../memory/normalize";
import type { Category } from "../memory/rows";
import { searchMemories } from "../memory/search";
import { dayOf } from "../memory/time";
import type { MindContext } from "../tenancy/mind-context";
import { oneLine } from "./document";

// What extraction shows the model of what the mind already holds, so that it can say of each
// fact whether it is new, the same as a memory, or replaces one: the namespace's current
// memories found by full-text search over what the person said, as many as fit a small budget.
// The model is shown them only when there are some, so a mind without memories pays nothing.

/** Tokens the known memories take in one extraction call at most (their lines, not the instructions). */
export const KNOWN_TOKENS = 300;
/** Memories searched for, before the budget cuts them. */
const KNOWN_SEARCHED = 12;
/** The person's words a search asks with: the most frequent of their distinct words. */
const QUERY_WORDS = 24;
/** A memory's content is shown up to this many characters. */
const CONTENT_CHARS = 200;

/** A memory the model is shown, by its key. */
export interface KnownMemory {
  category: Category;
  key: string;
  content: string;
  observed_at: string;
}

/** What the model may say of a fact, beside it: the key of a memory it repeats or replaces. */
export const knownVerdict = {
  same: z.string().max(100).optional().catch(undefined),
  replaces: z.string().max(100).optional().catch(undefined),
};

/** The instructions that go with known memories, given only when some are shown. */
export const KNOWN_RULES = [
  "<memories> lists what is already remembered about the person (key: fact (the day it was stated)).",
  '- A fact that says what one of them says gets "same":"<its key>"; a fact that changes or contradicts one (a newer value of the same thing) gets "replaces":"<its key>". A new fact gets neither.',
];

/** The distinct words the person said most often, as a search query. */
function personsWords(said: string[]): string {
  const counts = new Map<string, { word: string; n: number; first: number }>();
  for (const [i, word] of said.flatMap(words).entries()) {
    if (STOP_WORDS.has(word) || word.length < 3) continue;
    const s = stem(word);
    const seen = counts.get(s);
    if (seen) seen.n++;
    else counts.set(s, { word, n: 1, first: i });
  }
  return [...counts.values()]
    .sort((a, b) => b.n - a.n || a.first - b.first)
    .slice(0, QUERY_WORDS)
    .map((c) => c.word)
    .join(" ");
}

const lineOf = (m: KnownMemory) => `- ${m.key}: ${oneLine(m.content).slice(0, CONTENT_CHARS)} (${dayOf(m.observed_at)})`;

/**
 * The current memories of the context's namespace on what the person said (their messages'
 * text), best first, as many as fit KNOWN_TOKENS. None when nothing was said or nothing matches.
 */
export async function knownMemories(mindContext: MindContext, said: string[]): Promise<KnownMemory[]> {
  const q = personsWords(said);
  if (q === "") return [];
  const hits = await searchMemories(mindContext, { q, limit: KNOWN_SEARCHED });
  const count = await loadTokenCounter();
  const known: KnownMemory[] = [];
  let tokens = 0;
  for (const { memory } of hits) {
    // A replacement becomes the memory's new version in the namespace the notes go to.
    if (memory.agent !== mindContext.scope.agent) continue;
    const shown = { category: memory.category, key: memory.key, content: memory.content, observed_at: memory.observed_at };
    tokens += count(lineOf(shown)) + 1;
    if (tokens > KNOWN_TOKENS) break;
    known.push(shown);
  }
  return known;
}

/** The known memories as the prompt shows them; nothing when there are none. */
export const knownBlock = (known: KnownMemory[]) => (known.length === 0 ? "" : `<memories>\n${known.map(lineOf).join("\n")}\n</memories>\n\n`);

/** What the model said of a fact: the same as a known memory, replacing one, or (null) new. A key it was not shown is new. */
export function verdictOf(answer: { same?: string; replaces?: string }, known: KnownMemory[]): { said: "same" | "replaces"; memory: KnownMemory } | null {
  const find = (key: string | undefined) => (key === undefined ? undefined : known.find((m) => m.key === key));
  const replaced = find(answer.replaces);
  if (replaced) return { said: "replaces", memory: replaced };
  const same = find(answer.same);
  return same ? { said: "same", memory: same } : null;
}

import { queryTerms, stems } from "./normalize";
import type { Memory } from "./rows";

// Among hits that say different things about one subject, the one stated later ranks first:
// the newest statement among the candidates, not nearness to today (DESIGN.md section 11). One
// subject is the versions of one memory (its namespace, category and key, as include=superseded
// lists them), or a run of hits next to each other in the ranking holding the same two or more
// of the question's terms, each scoring within CLOSE of the one before: they answer the question
// alike. Such a group keeps the places and scores its hits had; they are dealt back into them
// newest statement first. Every other hit stays where it was. Runs, not every hit holding the
// terms: reaching further down let later statements push out the earlier ones a question about
// several events needs (LoCoMo's multi-hop answers in the context fell 1.5 points at 1,500 tokens).

/** A hit joins the run before it only while it scores at least this share of that run's last hit. */
export const CLOSE = 0.8;
/** Fewer of the question's terms than this say too little to make two hits one subject. */
const MIN_SHARED_TERMS = 2;

interface Ranked {
  memory: Memory;
  score: number;
}

/** The question's terms a memory holds in its key, content and tags, as one string (null: too few). */
function termsHeld(memory: Memory, asked: ReadonlySet<string>): string | null {
  const held = new Set(stems([memory.key.replaceAll("_", " "), memory.content, ...memory.tags].join(" ")));
  const shared = [...asked].filter((t) => held.has(t)).sort();
  return shared.length >= MIN_SHARED_TERMS ? shared.join(" ") : null;
}

/** The root of a hit's group (union-find over hit positions). */
function rootOf(parent: number[], i: number): number {
  while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
  return i;
}

/** Hit positions grouped by subject: each group's positions in rank order. */
function subjects(hits: readonly Ranked[], q: string): number[][] {
  const asked = new Set(queryTerms(q));
  const parent = hits.map((_, i) => i);
  const versions = new Map<string, number>();
  const terms = hits.map(({ memory }) => termsHeld(memory, asked));
  hits.forEach(({ memory, score }, i) => {
    const version = `${memory.agent}\u0000${memory.category}\u0000${memory.key}`;
    const j = versions.get(version);
    if (j === undefined) versions.set(version, i);
    else parent[rootOf(parent, i)] = rootOf(parent, j);
    const before = hits[i - 1];
    if (before && terms[i] !== null && terms[i] === terms[i - 1] && score >= CLOSE * before.score) parent[rootOf(parent, i)] = rootOf(parent, i - 1);
  });
  const groups = new Map<number, number[]>();
  hits.forEach((_, i) => groups.set(rootOf(parent, i), [...(groups.get(rootOf(parent, i)) ?? []), i]));
  return [...groups.values()].filter((g) => g.length > 1);
}

/** ISO 8601 times, the later first (compared as text: the stored form sorts by time). */
const laterFirst = (a: string, b: string) => (a === b ? 0 : a < b ? 1 : -1);

/** The hits with each subject's statements dealt back into its places newest first, each taking the place's score. */
export function statedLaterFirst<T extends Ranked>(hits: readonly T[], q: string): T[] {
  const out = [...hits];
  for (const places of subjects(hits, q)) {
    const newestFirst = places.map((i) => hits[i]!).sort((a, b) => laterFirst(a.memory.observed_at, b.memory.observed_at));
    places.forEach((place, k) => {
      out[place] = { ...newestFirst[k]!, score: hits[place]!.score };
    });
  }
  return out;
}

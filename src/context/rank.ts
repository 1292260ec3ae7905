import type { SearchHit } from "../memory/search";

// Memories written together share a tag (a day, a project, a source), and what a message asks
// about is often spread over several of them. The leading hits show which tags the message is
// about: a hit sharing them is lifted above one that matched as well on words alone.
// Chosen on LoCoMo's conversations 0–4 (bench/parts/context.ts).

/** How many of the best hits say which tags the message is about. */
export const TAG_LEAD = 10;
/** A hit whose tags every leading hit shares gains this share of its score; half of them, half of it. */
export const TAG_LIFT = 1;

/** The hits re-ordered by their score, lifted by the share of leading hits that share a tag with each. */
export function liftBySharedTags(hits: readonly SearchHit[], lift = TAG_LIFT): SearchHit[] {
  const lead = hits.slice(0, TAG_LEAD).map((h) => new Set(h.memory.tags));
  if (lead.length === 0) return [...hits];
  const shared = (tags: readonly string[]) => lead.filter((held) => tags.some((t) => held.has(t))).length / lead.length;
  return hits
    .map((hit, i) => ({ hit, i, score: hit.score * (1 + lift * shared(hit.memory.tags)) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map(({ hit, score }) => ({ ...hit, score }));
}

/**
 * A hit scoring under this share of the best one was found by little more than words most
 * memories hold (a name said throughout, a common verb): what was said around the hits that
 * matched the message is worth its tokens more. Chosen on LoCoMo's conversations 0–4.
 */
export const WEAK_SHARE = 0.05;

/** The hits scoring at least `share` of the best one, and the rest (none when `share` is 0), each in rank order. */
export function splitWeak(hits: readonly SearchHit[], share = WEAK_SHARE): { strong: SearchHit[]; weak: SearchHit[] } {
  const bar = share * (hits[0]?.score ?? 0);
  if (share <= 0 || bar <= 0) return { strong: [...hits], weak: [] };
  return { strong: hits.filter((h) => h.score >= bar), weak: hits.filter((h) => h.score < bar) };
}

import { KNOWLEDGE_UPDATE, sessionOf } from "./longmemeval-kinds";
import { foundAt, type Ranking, RECALL_KS, type RetrievalScore, scoreRetrieval } from "./metrics";

// LongMemEval is scored as its paper scores retrieval: a question is found at k when any turn
// holding its answer is among the first k hits (turn recall), or any session holding it is among
// the first k hits' sessions (session recall). Its knowledge-update questions add "newer first".

/** A question's ranking with the sessions that hold its answer. */
export interface SessionRanking extends Ranking {
  sessions: number[];
}

export interface LongMemEvalScore extends RetrievalScore {
  /** Session recall@5/10/25/50 in %. */
  sessions: Record<string, number>;
  sessionsByCategory: Record<string, Record<string, number>>;
  /** Knowledge updates whose evidence lies in more than one session, and the share (in %) ranked newer first. */
  newerFirst: { questions: number; share: number };
}

/** Whether one of the sessions is among the first k hits' sessions (1 or 0). */
function sessionFoundAt(ranked: readonly string[], sessions: readonly number[], k: number): number {
  const seen = new Set(ranked.slice(0, k).map(sessionOf));
  return sessions.some((s) => seen.has(s)) ? 1 : 0;
}

/** Session recall@k in % of the rankings. */
function sessionRecall(rankings: readonly SessionRanking[]): Record<string, number> {
  const n = rankings.length || 1;
  return Object.fromEntries(RECALL_KS.map((k) => [`@${k}`, (100 * rankings.reduce((s, r) => s + sessionFoundAt(r.ranked, r.sessions, k), 0)) / n]));
}

/**
 * Whether a fact that changed is found newer first: the question's evidence turns lie in two or
 * more sessions (sessions are numbered oldest first), and the best-placed evidence turn of the
 * latest of them stands above the best-placed evidence turn of every earlier one among the 50
 * hits. An earlier session with no evidence turn among the hits counts as below; the latest with
 * none among them fails the question. Null when the evidence lies in one session.
 */
export function newerFirst(r: Ranking): boolean | null {
  const bySession = new Map<number, number>();
  for (const id of r.evidence) bySession.set(sessionOf(id), Number.POSITIVE_INFINITY);
  if (bySession.size < 2) return null;
  r.ranked.forEach((id, place) => {
    const s = sessionOf(id);
    if (r.evidence.includes(id) && place < bySession.get(s)!) bySession.set(s, place);
  });
  const latest = Math.max(...bySession.keys());
  const earlier = [...bySession].filter(([s]) => s !== latest).map(([, place]) => place);
  const place = bySession.get(latest)!;
  return Number.isFinite(place) && earlier.every((p) => place < p);
}

/** Turn recall (any evidence turn found), NDCG@10, session recall, per kind, and newer first on the knowledge updates. */
export function scoreLongMemEval(rankings: readonly SessionRanking[]): LongMemEvalScore {
  const turns = scoreRetrieval(rankings, foundAt);
  const kinds = Object.keys(turns.byCategory);
  const judged = rankings.filter((r) => r.category === KNOWLEDGE_UPDATE).map(newerFirst).filter((x): x is boolean => x !== null);
  return {
    ...turns,
    sessions: sessionRecall(rankings),
    sessionsByCategory: Object.fromEntries(kinds.map((c) => [c, sessionRecall(rankings.filter((r) => String(r.category) === c))])),
    newerFirst: { questions: judged.length, share: (100 * judged.filter(Boolean).length) / (judged.length || 1) },
  };
}

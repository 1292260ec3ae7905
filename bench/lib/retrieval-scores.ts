import type { Conversation } from "./dataset";
import { type LongMemEvalScore, scoreLongMemEval } from "./longmemeval-metrics";
import { type Ranking, type RetrievalScore, scoreRetrieval } from "./metrics";

// Rankings (each conversation's questions, each its turn ids best first) scored as each data set
// is: LoCoMo by the share of its evidence turns found, per group of conversations; LongMemEval by
// any evidence turn found, its sessions, and newer first. Plain data: the jobs score inside
// workerd, the ablation in node.

/** Each conversation's questions, each its turn ids best first. */
export type Found = string[][][];

export interface LocomoScores {
  score: RetrievalScore;
  /** By group of conversations (all, tuning, held out). */
  groups: Record<string, RetrievalScore>;
}

/** One system's scores on both sets. */
export interface SetScores {
  locomo: RetrievalScore;
  groups: Record<string, RetrievalScore>;
  longmemeval: LongMemEvalScore;
}

const rankings = (conversations: readonly Conversation[], found: Found, ids?: readonly string[]): Ranking[] =>
  conversations.flatMap((c, ci) =>
    ids && !ids.includes(c.id) ? [] : c.questions.map((q, i) => ({ category: q.category, evidence: q.evidence, ranked: found[ci]?.[i] ?? [] })),
  );

/** LoCoMo's score of the rankings, overall and per group of conversations. */
export function scoreLocomo(conversations: readonly Conversation[], found: Found, groups: Record<string, string[]>): LocomoScores {
  return {
    score: scoreRetrieval(rankings(conversations, found)),
    groups: Object.fromEntries(Object.entries(groups).map(([g, ids]) => [g, scoreRetrieval(rankings(conversations, found, ids))])),
  };
}

/** LongMemEval's score of the rankings of its one pooled conversation. */
export function scoreLme(conversation: Conversation, found: Found): LongMemEvalScore {
  return scoreLongMemEval(conversation.questions.map((q, i) => ({ category: q.category, evidence: q.evidence, sessions: q.sessions ?? [], ranked: found[0]?.[i] ?? [] })));
}

/** Both sets' scores side by side. */
export const joined = (locomo: LocomoScores, longmemeval: LongMemEvalScore): SetScores => ({ locomo: locomo.score, groups: locomo.groups, longmemeval });

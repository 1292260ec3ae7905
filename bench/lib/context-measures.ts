import { type Conversation, dateTag, type Question, turnContent } from "./dataset";

// What a model reads, measured on the text it is handed: an evidence turn counts only when its
// whole text is there (as whole words), the gold answer when it occurs there. Both are compared
// as "readable" text: lower case, every run of characters other than letters and digits one
// space, so neither line breaks, marks nor punctuation around a turn decide the figure.

/** Lower case, each run of non-letters and non-digits as one space, one space at either end. */
export const readable = (text: string) => ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;

/** Whether `phrase` occurs in `text` (both readable); a phrase padded by readable() matches whole words only. */
export const holds = (text: string, phrase: string) => phrase.trim() !== "" && text.includes(phrase);

/** A conversation prepared for measuring: each turn's readable text, each question's readable answer when it can be found. */
export interface Measurable {
  turns: Map<string, string>;
  /** Each turn's session date as its tag says it ("8 may 2023"), readable. */
  dates: Map<string, string>;
  /** The readable gold answer (unpadded: it may occur inside a word) of each question whose answer occurs in some turn, by question index. */
  answers: Map<number, string>;
}

export function measurable(c: Conversation): Measurable {
  const turns = new Map(c.turns.map((t) => [t.id, readable(turnContent(t))]));
  const dates = new Map(c.turns.map((t) => [t.id, readable(dateTag(t))]));
  const texts = [...turns.values()];
  const answers = new Map<number, string>();
  c.questions.forEach((q, i) => {
    const answer = q.answer === undefined ? "" : readable(q.answer).trim();
    if (answer.trim() !== "" && texts.some((t) => holds(t, answer))) answers.set(i, answer);
  });
  return { turns, dates, answers };
}

/** One question against one context text: evidence turns whole, the answer, evidence ids included. */
export interface Reading {
  evidence: number;
  whole: number;
  included: number;
  /** null: the question's answer stands in no turn, so it is not counted. */
  answered: boolean | null;
  /** Temporal questions (category 2): their evidence turns, and those whole in the text with their session date in it too. */
  temporal: number;
  dated: number;
}

/** LoCoMo's category of questions asking when. */
const TEMPORAL = 2;

export function reading(m: Measurable, q: Question, index: number, text: string, turnIds: readonly string[]): Reading {
  const seen = readable(text);
  const answer = m.answers.get(index);
  return {
    evidence: q.evidence.length,
    whole: q.evidence.filter((id) => holds(seen, m.turns.get(id)!)).length,
    included: q.evidence.filter((id) => turnIds.includes(id)).length,
    answered: answer === undefined ? null : holds(seen, answer),
    temporal: q.category === TEMPORAL ? q.evidence.length : 0,
    dated: q.category === TEMPORAL ? q.evidence.filter((id) => holds(seen, m.turns.get(id)!) && holds(seen, m.dates.get(id)!)).length : 0,
  };
}

/** Sums of readings: evidence turns, whole, included; answers counted, found. */
export interface Tally {
  questions: number;
  evidence: number;
  whole: number;
  included: number;
  answerable: number;
  answered: number;
  temporal: number;
  dated: number;
}

export const emptyTally = (): Tally => ({ questions: 0, evidence: 0, whole: 0, included: 0, answerable: 0, answered: 0, temporal: 0, dated: 0 });

export function add(t: Tally, r: Reading): void {
  t.questions++;
  t.evidence += r.evidence;
  t.whole += r.whole;
  t.included += r.included;
  t.temporal += r.temporal;
  t.dated += r.dated;
  if (r.answered !== null) {
    t.answerable++;
    if (r.answered) t.answered++;
  }
}

/** Shares in %: evidence turns whole in the text, gold answer in the text, evidence ids included. */
export const shares = (t: Tally) => ({
  questions: t.questions,
  answerable: t.answerable,
  wholePercent: (100 * t.whole) / t.evidence,
  answerPercent: (100 * t.answered) / t.answerable,
  includedPercent: (100 * t.included) / t.evidence,
  datedPercent: (100 * t.dated) / t.temporal,
});

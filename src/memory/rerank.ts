import { stem } from "./normalize";

// bm25 over the OR of a question's terms lets a memory that repeats one term outrank one that
// holds several of them. A second look at the best candidates lifts each by how many distinct
// terms of the question it holds (its key, content and tags; not its context): proximity with
// the whole memory as the window. A question asking when lifts the memories that say when
// (yesterday, last week, in May, 2022): its answer is a time, and often only such a memory
// holds it. Chosen on LoCoMo's conversations 0–4 (bench/parts/retrieval.ts).

/** Each further distinct query term a memory holds raises its score by this share. */
export const COVERAGE_BOOST = 0.2;
/** A memory naming a time scores this many times more for a question asking when. */
export const WHEN_LIFT = 1.5;
/** Candidates fetched per hit returned, so that a memory just below the cut can rise into it. */
export const CANDIDATES_PER_HIT = 2;

/** The indexed text a candidate is looked at again by: space-separated terms, as stored. */
export interface Candidate {
  score: number;
  searchKey: string;
  searchContent: string;
  searchTags: string;
}

const WHEN_QUESTION =
  /^\s*(when|what (date|year|month|day|time)|how long ago|which (year|month|day)|когда|как давно|какого числа|в (каком|какой|какие) (году|месяце|день|дни))(?![\p{L}\p{N}])/iu;

/** Stems of the words by which a text says when: days, months, seasons, and times relative to now. */
const TIME_STEMS = new Set(
  [
    "yesterday today tomorrow tonight ago last next week weekend month year day morning evening night recent recently soon earlier later since just",
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december summer winter spring fall autumn",
    "вчера позавчера сегодня завтра назад прошлый следующий неделя выходные месяц год день утро вечер ночь недавно скоро раньше позже",
    "понедельник вторник среда четверг пятница суббота воскресенье январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь лето зима весна осень",
  ]
    .join(" ")
    .split(" ")
    .map(stem),
);
const YEAR = /^(19|20)\d\d$/;

/** Whether a question asks when something happened (in English or Russian). */
export const asksWhen = (question: string) => WHEN_QUESTION.test(question.normalize("NFC"));

/** Whether indexed text (space-separated stems, each behind `token`) names a time: a day, a month, "last week", a year. */
export function namesTime(indexed: string, token = ""): boolean {
  return indexed.split(" ").some((term) => {
    const s = term.slice(token.length);
    return TIME_STEMS.has(s) || YEAR.test(s);
  });
}

/** Distinct query terms found among a candidate's key, content and tags terms. */
function termsHeld(candidate: Candidate, terms: readonly string[]): number {
  const held = new Set([candidate.searchKey, candidate.searchContent, candidate.searchTags].join(" ").split(" "));
  return terms.filter((t) => held.has(t)).length;
}

/**
 * The candidates re-scored by the query terms each holds and, when the question asks when
 * (`whenToken`: then the mind's search token), by whether its content names a time; best first,
 * cut to `limit`.
 */
export function rankByCoverage<T extends Candidate>(candidates: readonly T[], terms: readonly string[], limit: number, whenToken?: string): T[] {
  const lift = (c: Candidate) => (whenToken !== undefined && namesTime(c.searchContent, whenToken) ? WHEN_LIFT : 1);
  return candidates
    .map((c, i) => ({ c: { ...c, score: c.score * (1 + COVERAGE_BOOST * Math.max(0, termsHeld(c, terms) - 1)) * lift(c) }, i }))
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .slice(0, limit)
    .map((x) => x.c);
}

import type { TimeSpan } from "./asked-time";
import { PRIORITIES } from "./fields";
import { stem } from "./normalize";

// A second look at the best candidates, scored by relevance.ts:
// - bm25 over the OR of a question's terms lets a memory that repeats one term outrank one that
//   holds several: each further distinct term of the question a memory holds (key, content,
//   tags; not its context) lifts it a little;
// - a question asking when (how long ago, which came first) lifts the memories that say when
//   (yesterday, last week, in May, 2022): its answer is a time, often held by them alone;
// - a question naming a time back from now ("two weeks ago", «в прошлую субботу») lifts the
//   memories stated within it (asked-time.ts);
// - when the strongest candidates speak of one subject, what was stated last comes first: of two
//   statements of a fact, the newer is likelier the one that holds (newestFirst);
// - priority, then the time a memory was stated, only break ties.
// Chosen on LoCoMo and the development half of LongMemEval together (bench/lib/ablation.ts).

/** Each further distinct query term a memory holds raises its score by this share. */
export const COVERAGE_BOOST = 0.1;
/** A memory naming a time scores this many times more for a question asking when. */
export const WHEN_LIFT = 1.5;
/** A memory stated within the time a question names scores this many times more. */
export const SPAN_LIFT = 3;
/** Candidates scored per hit returned, so that a memory just below the cut can rise into it; at least MIN_CANDIDATES. */
export const CANDIDATES_PER_HIT = 4;
export const MIN_CANDIDATES = 100;
/** The strongest candidates: scoring at least this share of the best, and holding this share of the question's weight in their own words. */
export const LEAD_SHARE = 0.6;
export const SUBJECT_SHARE = 0.6;

/** A candidate as the second look reads it: its score, indexed text (space-separated terms), priority and when it was stated. */
export interface Candidate {
  score: number;
  searchKey: string;
  searchContent: string;
  searchTags: string;
  /** One of PRIORITIES. */
  priority: string;
  /** When the memory was stated (ISO 8601). */
  statedAt: string;
}

/** What the second look asks of a query. */
export interface Reranking {
  /** The question's own terms (as indexed), each with its weight by rarity in the mind. */
  terms: ReadonlyMap<string, number>;
  limit: number;
  /** The mind's search token when the question asks when, else undefined. */
  whenToken?: string;
  /** The time the question points back to, if any. */
  span?: TimeSpan | null;
}

const WHEN_QUESTION =
  /^\s*(when|what (date|year|month|day|time)|what (was|is) the (date|day)|how long ago|how many (days|weeks|months|years)|which\b.*\bfirst\b|когда|как давно|какого числа|сколько (дней|недель|месяцев|лет)|в (каком|какой|какие) (году|месяце|день|дни))(?![\p{L}\p{N}])/iu;

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

/** Whether a question asks when something happened, how long ago, or which came first (in English or Russian). */
export const asksWhen = (question: string) => WHEN_QUESTION.test(question.normalize("NFC"));

/** Whether indexed text (space-separated stems, each behind `token`) names a time: a day, a month, "last week", a year. */
export function namesTime(indexed: string, token = ""): boolean {
  return indexed.split(" ").some((term) => {
    const s = term.slice(token.length);
    return TIME_STEMS.has(s) || YEAR.test(s);
  });
}

/** The query's terms found among a candidate's key, content and tags terms. */
function termsHeld(candidate: Candidate, terms: ReadonlyMap<string, number>): number {
  const held = new Set([candidate.searchKey, candidate.searchContent, candidate.searchTags].join(" ").split(" "));
  return [...terms.keys()].filter((t) => held.has(t)).length;
}

/** The candidate's score lifted by the terms it holds, by naming a time when asked when, and by being stated within the asked span. */
function lifted(c: Candidate, query: Reranking): number {
  const coverage = 1 + COVERAGE_BOOST * Math.max(0, termsHeld(c, query.terms) - 1);
  const when = query.whenToken !== undefined && namesTime(c.searchContent, query.whenToken) ? WHEN_LIFT : 1;
  const at = query.span ? Date.parse(c.statedAt) : Number.NaN;
  const span = query.span && at >= query.span.from.getTime() && at <= query.span.to.getTime() ? SPAN_LIFT : 1;
  return c.score * coverage * when * span;
}

const priorityRank = (priority: string) => (PRIORITIES as readonly string[]).indexOf(priority);

/** Higher score first; on a tie the higher priority, then the later statement. */
export function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || priorityRank(b.priority) - priorityRank(a.priority) || b.statedAt.localeCompare(a.statedAt);
}

/**
 * The strongest candidates (within LEAD_SHARE of the best, their own content holding SUBJECT_SHARE
 * of the question's weight) speak of one subject: the latest statement among them (those stated
 * at its moment, as the turns of one dated conversation are) takes the first of the places they
 * hold, and the others follow in their order. Every other candidate keeps its place.
 */
export function newestFirst<T extends Candidate>(ranked: readonly T[], terms: ReadonlyMap<string, number>): T[] {
  const best = ranked[0]?.score ?? 0;
  const total = [...terms.values()].reduce((n, w) => n + w, 0);
  const subject = (c: T) => {
    const own = new Set(c.searchContent.split(" "));
    return [...terms].reduce((n, [t, w]) => n + (own.has(t) ? w : 0), 0) >= SUBJECT_SHARE * total;
  };
  const places = ranked.flatMap((c, i) => (best > 0 && c.score >= LEAD_SHARE * best && subject(c) ? [i] : []));
  const members = places.map((i) => ranked[i]!);
  const latest = members.reduce((at, c) => (c.statedAt > at ? c.statedAt : at), "");
  const lately = (c: T) => c.statedAt === latest;
  const order = [...members.filter(lately), ...members.filter((c) => !lately(c))];
  const out = [...ranked];
  places.forEach((place, n) => {
    out[place] = order[n]!;
  });
  return out;
}

/** The candidates re-scored and ordered by the second look (see the top of this file), cut to `limit`. */
export function rerank<T extends Candidate>(candidates: readonly T[], query: Reranking): T[] {
  const scored = candidates.map((c) => ({ ...c, score: lifted(c, query) })).sort(byRank);
  return newestFirst(scored, query.terms).slice(0, query.limit);
}

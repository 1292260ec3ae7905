import Database from "better-sqlite3";
import { askedTime } from "../../src/memory/asked-time";
import { QUESTION_WORDS, STOP_WORDS, stem, words } from "../../src/memory/normalize";
import { idf } from "../../src/memory/relevance";
import { asksWhen, namesTime, newestFirst } from "../../src/memory/rerank";
import { B, contentNorm, contextWeight, LIFTS, NLTK_STOP_WORDS, saturated, type Variant } from "./ablation";
import { type Conversation, dateTag, type Question, turnContent } from "./dataset";

// The ablation's loop: each conversation (one mind) as rows of counted terms, each question ranked
// by a variant in code; and the plain-bm25 row, by FTS5's own bm25() in better-sqlite3.

const DEPTH = 50;
/** Candidates the second look re-scores, per hit kept, as the product does. */
const CANDIDATES_PER_HIT = 4;
// Questions as the product read them before: only those opening with "when" lifted times.
const OPENS_WITH_WHEN =
  /^\s*(when|what (date|year|month|day|time)|how long ago|which (year|month|day)|когда|как давно|какого числа|в (каком|какой|какие) (году|месяце|день|дни))(?![\p{L}\p{N}])/iu;

interface Field {
  of: Map<string, number>;
  length: number;
}
interface Row {
  id: string;
  at: string;
  /** content, tags, context */
  fields: [Field, Field, Field];
  content: string[];
}
interface Pool {
  rows: Row[];
  postings: Map<string, number[]>;
  held: Map<string, number>;
  averages: [number, number, number];
}

const field = (terms: string[]): Field => {
  const of = new Map<string, number>();
  for (const t of terms) of.set(t, (of.get(t) ?? 0) + 1);
  return { of, length: terms.length };
};

/** A conversation's turns as rows of terms (stemmed or not): content, session date, the turns around in its session. */
function pool(c: Conversation, stemmed: boolean): Pool {
  const terms = (text: string) => (stemmed ? words(text).map(stem) : words(text));
  const own = c.turns.map((t) => terms(turnContent(t)));
  const rows = c.turns.map((t, i): Row => {
    const near = [i - 1, i + 1].filter((j) => c.turns[j]?.session === t.session).flatMap((j) => own[j]!);
    return { id: t.id, at: t.at, fields: [field(own[i]!), field(terms(dateTag(t))), field(near)], content: own[i]! };
  });
  const postings = new Map<string, number[]>();
  rows.forEach((r, i) => {
    for (const t of new Set(r.fields.flatMap((f) => [...f.of.keys()]))) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  });
  const held = new Map([...postings].map(([t, rs]) => [t, rs.length]));
  const averages = [0, 1, 2].map((f) => rows.reduce((n, r) => n + r.fields[f]!.length, 0) / Math.max(1, rows.length) || 1) as Pool["averages"];
  return { rows, postings, held, averages };
}

/** The terms a variant asks for. */
function askedTerms(v: Variant, question: string): string[] {
  const all = words(question);
  const drop = (w: string) => (v.stopWords && (v.bigStopList ? NLTK_STOP_WORDS : STOP_WORDS).has(w)) || (v.questionWords && QUESTION_WORDS.has(w));
  const kept = all.some((w) => !drop(w)) ? all.filter((w) => !drop(w)) : all;
  return [...new Set(v.stem ? kept.map(stem) : kept)];
}

/** One row's score for the terms: one bm25 over the row, or BM25F. */
function rowScore(v: Variant, p: Pool, r: Row, terms: readonly string[]): number {
  const [content, tags, context] = r.fields;
  const tagWeight = v.tags ? 2 : 0;
  const cw = contextWeight(v, content.length);
  const rowLength = content.length + (v.tags ? tags.length : 0) + (cw > 0 ? context.length : 0);
  const averageRow = p.averages[0] + (v.tags ? p.averages[1] : 0) + (cw > 0 ? p.averages[2] : 0);
  let score = 0;
  for (const t of terms) {
    const [c, g, x] = [content.of.get(t) ?? 0, tags.of.get(t) ?? 0, context.of.get(t) ?? 0];
    if (v.fields === "row") {
      const f = c + tagWeight * g + cw * x;
      const norm = 1 - B + (B * rowLength) / averageRow;
      if (f > 0) score += saturated(v, f / norm, p.rows.length, p.held.get(t) ?? 0);
    } else {
      const f = c / contentNorm(v, content.length, p.averages[0]) + tagWeight * g + (cw * x) / (1 - B + (B * context.length) / p.averages[2]);
      if (f > 0) score += saturated(v, f, p.rows.length, p.held.get(t) ?? 0);
    }
  }
  return score;
}

/** Distinct pairs of question terms within three places of each other in the turn. */
function closePairs(content: readonly string[], terms: ReadonlySet<string>): number {
  const pairs = new Set<string>();
  content.forEach((t, i) => {
    if (!terms.has(t)) return;
    for (let j = i + 1; j <= i + 3 && j < content.length; j++) if (terms.has(content[j]!) && content[j] !== t) pairs.add([t, content[j]].sort().join(" "));
  });
  return pairs.size;
}

/** The variant's second look at one candidate's score. */
function lifted(v: Variant, r: Row, score: number, terms: readonly string[], q: Question, span: ReturnType<typeof askedTime>): number {
  const own = new Set([...r.fields[0].of.keys(), ...(v.tags ? r.fields[1].of.keys() : [])]);
  const held = terms.filter((t) => own.has(t)).length;
  let s = score * (1 + v.coverage * Math.max(0, held - 1));
  const when = v.when === "asks-when" ? asksWhen(q.text) : v.when === "when" && OPENS_WITH_WHEN.test(q.text);
  if (when && namesTime(r.content.join(" "))) s *= LIFTS.when;
  if (span && Date.parse(r.at) >= span.from.getTime() && Date.parse(r.at) <= span.to.getTime()) s *= LIFTS.span;
  if (v.proximity) s *= 1 + 0.1 * closePairs(r.content, new Set(terms));
  return s;
}

/** One question's turn ids, best first, by a variant. */
function rank(v: Variant, p: Pool, q: Question): string[] {
  const terms = askedTerms(v, q.text);
  const touched = new Set(terms.flatMap((t) => p.postings.get(t) ?? []));
  let hits = [...touched].map((i) => ({ row: p.rows[i]!, score: rowScore(v, p, p.rows[i]!, terms) })).filter((h) => h.score > 0);
  hits.sort((a, b) => b.score - a.score);
  hits = hits.slice(0, DEPTH * CANDIDATES_PER_HIT);
  const span = v.span && q.asked ? askedTime(q.text, new Date(q.asked)) : null;
  hits = hits.map((h) => ({ ...h, score: lifted(v, h.row, h.score, terms, q, span) })).sort((a, b) => b.score - a.score || b.row.at.localeCompare(a.row.at));
  if (v.newest) {
    const weights = new Map(terms.map((t) => [t, idf(p.rows.length, p.held.get(t) ?? 0)]));
    const candidates = hits.map((h) => ({ ...h, searchKey: "", searchContent: h.row.content.join(" "), searchTags: "", priority: "normal", statedAt: h.row.at }));
    hits = newestFirst(candidates, weights);
  }
  return hits.slice(0, DEPTH).map((h) => h.row.id);
}

// Each conversation's rows, stemmed and not, built once for all variants.
const pools = new WeakMap<Conversation, Map<boolean, Pool>>();
const poolOf = (c: Conversation, stemmed: boolean) => {
  const built = pools.get(c) ?? pools.set(c, new Map()).get(c)!;
  return built.get(stemmed) ?? built.set(stemmed, pool(c, stemmed)).get(stemmed)!;
};

/** Every question of every conversation ranked by one variant: each conversation's questions, each its turn ids best first. */
export function rankVariant(v: Variant, conversations: readonly Conversation[]): string[][][] {
  return conversations.map((c) => {
    const p = poolOf(c, v.stem);
    return c.questions.map((q) => rank(v, p, q));
  });
}

/**
 * The plain-bm25 row: FTS5's bm25() (k1 1.2, b 0.75) over a table of each conversation's turns
 * (`speaker: text`, the content column alone), each question's distinct lower-case words OR-ed;
 * no stemming, no stop words.
 */
export function plainBm25(conversations: readonly Conversation[]): string[][][] {
  return conversations.map((c) => {
    const db = new Database(":memory:");
    db.exec("create virtual table turns using fts5(id unindexed, content)");
    const insert = db.prepare("insert into turns(id, content) values (?, ?)");
    db.transaction(() => {
      for (const t of c.turns) insert.run(t.id, turnContent(t));
    })();
    const query = db.prepare(`select id from turns where turns match ? order by bm25(turns) limit ${DEPTH}`);
    const found = c.questions.map((q) => {
      const asked = [...new Set(words(q.text))];
      return asked.length === 0 ? [] : (query.all(asked.map((w) => `"${w}"`).join(" OR ")) as { id: string }[]).map((r) => r.id);
    });
    db.close();
    return found;
  });
}

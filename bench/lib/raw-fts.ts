import Database from "better-sqlite3";
import { boosted, COLUMN_B, columns, columnWeights, feedbackTerms, fuse, orExpression, queryTermsOf, type Variant } from "./ablation";
import type { Conversation } from "./dataset";
import type { Ranking } from "./metrics";

const DEPTH = 50;
// Boosts re-rank this many bm25 candidates per hit kept, as the product does.
const CANDIDATES_PER_HIT = 2;
const K1 = 1.2;

type Columns = ReturnType<typeof columns>;
interface Row {
  dia: string;
  cols: Columns;
  /** Term frequencies per column (body, date, neighbours) and lengths, for BM25F. */
  tf: Map<string, number>[];
  lengths: number[];
}

const counts = (text: string) => {
  const m = new Map<string, number>();
  for (const t of text.split(" ")) if (t !== "") m.set(t, (m.get(t) ?? 0) + 1);
  return m;
};

/**
 * Every question of every conversation ranked by one variant, on a raw FTS5 table in
 * better-sqlite3 holding all ten conversations (no edgemind code path but the normalisation).
 */
export function rankVariant(v: Variant, conversations: readonly Conversation[]): Map<string, Ranking[]> {
  const db = new Database(":memory:");
  db.exec("create virtual table turns using fts5(conv unindexed, dia unindexed, body, date, near)");
  const insert = db.prepare("insert into turns(conv, dia, body, date, near) values (?, ?, ?, ?, ?)");
  const rows = new Map<string, Row[]>();
  db.transaction(() => {
    for (const c of conversations) {
      rows.set(
        c.id,
        c.turns.map((t, i) => {
          const cols = columns(v, c.turns, i);
          insert.run(c.id, t.id, cols.body, cols.date, cols.near);
          const tf = [cols.body, cols.date, cols.near].map(counts);
          return { dia: t.id, cols, tf, lengths: tf.map((m) => [...m.values()].reduce((a, b) => a + b, 0)) };
        }),
      );
    }
  })();
  const all = [...rows.values()].flat();
  const documents = all.length;
  const df = new Map<string, number>();
  for (const r of all) for (const t of new Set(r.tf.flatMap((m) => [...m.keys()]))) df.set(t, (df.get(t) ?? 0) + 1);
  const averageLength = [0, 1, 2].map((c) => all.reduce((n, r) => n + r.lengths[c]!, 0) / documents || 1);
  const weights = columnWeights(v);
  const boosts = v.when || v.phrase || v.proximity;
  const fetched = boosts ? DEPTH * CANDIDATES_PER_HIT : DEPTH;
  const query = db.prepare(
    `select dia, -bm25(turns, 0, 0, ${weights.join(", ")}) as score from turns where turns match ? and conv = ? order by score desc limit ${fetched}`,
  );

  /** BM25F over the conversation's turns: term frequency normalised by each column's own length. */
  const bm25f = (conversation: string, terms: readonly string[]) =>
    rows
      .get(conversation)!
      .map((r) => {
        let score = 0;
        for (const t of terms) {
          let f = 0;
          for (let c = 0; c < 3; c++) {
            const n = r.tf[c]!.get(t);
            if (n) f += (weights[c]! * n) / (1 - COLUMN_B[c]! + (COLUMN_B[c]! * r.lengths[c]!) / averageLength[c]!);
          }
          const held = df.get(t) ?? 0;
          if (f > 0) score += Math.max(1e-6, Math.log((documents - held + 0.5) / (held + 0.5))) * ((f * (K1 + 1)) / (f + K1));
        }
        return { dia: r.dia, score };
      })
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, fetched);

  const rank = (conversation: string, question: string, terms: readonly string[]): string[] => {
    if (terms.length === 0) return [];
    let hits = v.columnLengths ? bm25f(conversation, terms) : (query.all(orExpression(terms), conversation) as { dia: string; score: number }[]);
    if (boosts) {
      const of = new Map(rows.get(conversation)!.map((r) => [r.dia, r]));
      hits = hits
        .map((h) => ({ dia: h.dia, score: boosted(v, h.score, question, terms, of.get(h.dia)!.cols.body, of.get(h.dia)!.cols.date) }))
        .sort((a, b) => b.score - a.score);
    }
    return hits.slice(0, DEPTH).map((h) => h.dia);
  };

  const rankings = new Map<string, Ranking[]>();
  for (const c of conversations) {
    const bodies = new Map(rows.get(c.id)!.map((r) => [r.dia, r.cols.body]));
    const conversationDf = new Map<string, number>();
    for (const body of bodies.values()) for (const term of new Set(body.split(" "))) conversationDf.set(term, (conversationDf.get(term) ?? 0) + 1);
    rankings.set(
      c.id,
      c.questions.map((q) => {
        const asked = queryTermsOf(v, q.text);
        let ranked = rank(c.id, q.text, asked);
        if (v.feedback && ranked.length > 0) {
          const extra = feedbackTerms(asked, ranked.map((id) => bodies.get(id) ?? ""), conversationDf, bodies.size);
          if (extra.length > 0) ranked = fuse(ranked, rank(c.id, q.text, [...asked, ...extra]), DEPTH);
        }
        return { category: q.category, evidence: q.evidence, ranked };
      }),
    );
  }
  db.close();
  return rankings;
}

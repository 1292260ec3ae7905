import { QUESTION_KINDS } from "./longmemeval-kinds";
import type { LongMemEvalScore } from "./longmemeval-metrics";
import type { RetrievalScore } from "./metrics";
import type { SetScores } from "./retrieval-scores";
import { delta, fmt, table } from "./table";

// The markdown of the retrieval part: both data sets side by side, LongMemEval by question kind,
// LoCoMo by category and group of conversations, the goals, and the ablation with its verdicts.

const KS = ["@5", "@10", "@25", "@50"] as const;
const LOCOMO_CATEGORIES: Record<string, string> = { 1: "1 multi-hop", 2: "2 temporal", 3: "3 open-domain", 4: "4 single-hop", 5: "5 adversarial" };
const kindName = (k: string) => QUESTION_KINDS[Number(k) - 1] ?? k;

/** LoCoMo paper, Table 3: DRAGON retriever over dialog turns. */
export const DRAGON_ANCHOR = { "@5": 56.7, "@10": 66.2, "@25": 76.7, "@50": 82.7 };
/** LoCoMo's figures before this ranking (bench/results/retrieval.md of 2026-12-03): no row may fall below them. */
export const LOCOMO_FLOOR = { "@5": 66.4, "@10": 75.9, "@25": 83.0, "@50": 87.7 };

export interface Row {
  name: string;
  scores: SetScores;
}

const locomoCells = (s: RetrievalScore) => [...KS.map((k) => s.recall[k]!), s.ndcg10];
const lmeCells = (s: LongMemEvalScore) => [...KS.map((k) => s.recall[k]!), s.ndcg10, s.sessions["@5"]!, s.sessions["@10"]!, `${fmt(s.newerFirst.share)} %`];

/** Both sets side by side, one row a system. */
export function sideBySide(rows: readonly Row[]): string {
  const header = ["system", ...KS.map((k) => `LoCoMo R${k}`), "NDCG@10", ...KS.map((k) => `LongMemEval R${k}`), "NDCG@10", "sessions R@5", "sessions R@10", "newer first"];
  const anchor = ["LoCoMo paper: DRAGON, dialog turns (anchor)", ...KS.map((k) => DRAGON_ANCHOR[k]), "–", ...Array<string>(8).fill("")];
  return table(header, [...rows.map((r) => [r.name, ...locomoCells(r.scores.locomo), ...lmeCells(r.scores.longmemeval)]), anchor]);
}

/** The goals of the ranking, each marked met or not, for the full-text row against the plain-bm25 row. */
export function goals(product: SetScores, bm25: SetScores): string {
  const m = product.longmemeval;
  const b = bm25.longmemeval;
  const kind = (s: LongMemEvalScore, name: string) => s.byCategory[String(QUESTION_KINDS.indexOf(name as (typeof QUESTION_KINDS)[number]) + 1)]!.recall["@5"]!;
  const lines: [string, boolean][] = [
    [`LongMemEval R@5 ${fmt(m.recall["@5"]!)} ≥ 72 and ≥ bm25's ${fmt(b.recall["@5"]!)} + 8`, m.recall["@5"]! >= 72 && m.recall["@5"]! >= b.recall["@5"]! + 8],
    [`LongMemEval R@10 ${fmt(m.recall["@10"]!)} ≥ 80 and ≥ bm25's ${fmt(b.recall["@10"]!)} + 8`, m.recall["@10"]! >= 80 && m.recall["@10"]! >= b.recall["@10"]! + 8],
    [`newer first on knowledge updates ${fmt(m.newerFirst.share)} % ≥ 85 %`, m.newerFirst.share >= 85],
    ...["temporal-reasoning", "multi-session"].map((k): [string, boolean] => [`${k} R@5 ${fmt(kind(m, k))} above bm25's ${fmt(kind(b, k))}`, kind(m, k) > kind(b, k)]),
    [
      `LoCoMo R@5/10/25/50 ${KS.map((k) => fmt(product.locomo.recall[k]!)).join("/")} no lower than ${KS.map((k) => fmt(LOCOMO_FLOOR[k])).join("/")}`,
      KS.every((k) => product.locomo.recall[k]! >= LOCOMO_FLOOR[k]),
    ],
  ];
  return lines.map(([text, met]) => `- ${met ? "met" : "**not met**"}: ${text}`).join("\n");
}

/** LongMemEval by question kind: recall and NDCG of each system, `a / b / c`. */
export function byKind(rows: readonly Row[]): string {
  const kinds = Object.keys(rows[0]!.scores.longmemeval.byCategory);
  const cell = (f: (s: LongMemEvalScore, k: string) => number, k: string) => rows.map((r) => fmt(f(r.scores.longmemeval, k))).join(" / ");
  return table(
    ["kind", "questions", ...KS.map((k) => `R${k}`), "NDCG@10", "sessions R@5"],
    kinds.map((k) => [
      kindName(k),
      String(rows[0]!.scores.longmemeval.byCategory[k]!.questions),
      ...KS.map((at) => cell((s, c) => s.byCategory[c]!.recall[at]!, k)),
      cell((s, c) => s.byCategory[c]!.ndcg10, k),
      cell((s, c) => s.sessionsByCategory[c]!["@5"]!, k),
    ]),
  );
}

/** LoCoMo by category: `a / b` of the two rows. */
export function byCategory(a: RetrievalScore, b: RetrievalScore): string {
  return table(
    ["category", "questions", ...KS.map((k) => `R${k}`), "NDCG@10"],
    Object.keys(a.byCategory).map((c) => {
      const x = a.byCategory[c]!;
      const y = b.byCategory[c]!;
      return [LOCOMO_CATEGORIES[c] ?? c, String(x.questions), ...KS.map((k) => `${fmt(x.recall[k]!)} / ${fmt(y.recall[k]!)}`), `${fmt(x.ndcg10)} / ${fmt(y.ndcg10)}`];
    }),
  );
}

/** LoCoMo by group of conversations, each row's score per group. */
export function byGroup(rows: readonly Row[], groups: readonly string[]): string {
  return table(
    ["system", "questions", ...KS.map((k) => `R${k}`), "NDCG@10"],
    rows.flatMap((r) => groups.map((g) => [`${r.name}, ${g}`, r.scores.groups[g]!.questions, ...locomoCells(r.scores.groups[g]!)])),
  );
}

export interface AblationRow {
  name: string;
  group: "ladder" | "leave-one-out" | "went";
  scores: { locomo: RetrievalScore; longmemeval: LongMemEvalScore };
}

/** A difference to one decimal, never "-0.0". */
const round = (x: number) => Math.round(x * 10) / 10 || 0;
const change = (set: string, g: number) => `${set} ${delta(g)}`;

/**
 * The rule an idea stays by, on R@10: it helps both sets, or costs one at most 0.5 point. `gain`:
 * with the idea against without it; for an idea that went, that idea against the product's own.
 */
function verdict(gainLocomo: number, gainLme: number, went: boolean): string {
  const [l, m] = [round(gainLocomo), round(gainLme)];
  const both = `${change("LoCoMo", l)}, ${change("LongMemEval", m)}`;
  if (l <= 0 && m <= 0) return went ? `no better on either (${both})` : l === 0 && m === 0 ? "neutral at R@10" : `goes (${both})`;
  if (l >= 0 && m >= 0) return went ? `better on both (${both})` : l > 0 && m > 0 ? "helps both" : l > 0 ? "helps LoCoMo, LongMemEval unchanged" : "helps LongMemEval, LoCoMo unchanged";
  const within = l >= -0.5 && m >= -0.5;
  return went ? `${within ? "within the rule" : "fails the rule"} (${both})` : `${within ? "stays" : "goes"} (${both})`;
}

/** The ablation: each row's figures on both sets, its Δ R@10 against its reference, and what the rule says. */
export function ablation(rows: readonly AblationRow[]): string {
  const product = rows.filter((r) => r.group === "ladder").at(-1)!.scores;
  const r10 = (s: AblationRow["scores"]) => [s.locomo.recall["@10"]!, s.longmemeval.recall["@10"]!] as const;
  return table(
    ["variant", ...KS.map((k) => `LoCoMo R${k}`), "NDCG@10", ...KS.map((k) => `LongMemEval R${k}`), "NDCG@10", "newer first", "Δ LoCoMo R@10", "Δ LongMemEval R@10", "by the rule"],
    rows.map((r, i) => {
      const ref = r.group === "ladder" ? (i === 0 ? r.scores : rows[i - 1]!.scores) : product;
      const [l, m] = r10(r.scores);
      const [rl, rm] = r10(ref);
      // Ladder: the idea's gain is this row against the row above; leave-one-out: the product against the row; went: the row against the product.
      const gain = r.group === "leave-one-out" ? [rl - l, rm - m] : [l - rl, m - rm];
      const rule = i === 0 ? "" : verdict(gain[0]!, gain[1]!, r.group === "went");
      const s = r.scores;
      return [r.name, ...locomoCells(s.locomo), ...KS.map((k) => s.longmemeval.recall[k]!), s.longmemeval.ndcg10, `${fmt(s.longmemeval.newerFirst.share)} %`, delta(round(l - rl)), delta(round(m - rm)), rule];
    }),
  );
}

/** The ladder's R@5 per LongMemEval kind, Δ against the row above: which idea moved which kind. */
export function ladderByKind(rows: readonly AblationRow[]): string {
  const ladder = rows.filter((r) => r.group === "ladder");
  const kinds = Object.keys(ladder[0]!.scores.longmemeval.byCategory);
  return table(
    ["variant", ...kinds.map(kindName)],
    ladder.map((r, i) => [
      r.name,
      ...kinds.map((k) => {
        const v = r.scores.longmemeval.byCategory[k]!.recall["@5"]!;
        return i === 0 ? fmt(v) : `${fmt(v)} (${delta(round(v - ladder[i - 1]!.scores.longmemeval.byCategory[k]!.recall["@5"]!))})`;
      }),
    ]),
  );
}

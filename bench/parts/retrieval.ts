import { MEANING_WEIGHT } from "../../src/memory/fusion";
import { VARIANTS } from "../lib/ablation";
import { describeEndpoint, embeddingsEndpoint } from "../lib/embeddings";
import { LOCOMO_PATH, loadLocomo } from "../lib/locomo";
import { type Ranking, type RetrievalScore, scoreRetrieval } from "../lib/metrics";
import type { Part } from "../lib/part";
import { rankVariant } from "../lib/raw-fts";
import { ALL, conversationGroups, HELD_OUT, TUNING } from "../lib/split";
import { delta, fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface JobResult {
  edgemind: {
    score: RetrievalScore;
    groups: Record<string, RetrievalScore>;
    ingest: { turns: number; totalMs: number };
  };
  hybrid: { score: RetrievalScore; groups: Record<string, RetrievalScore>; model: string; fusedQuestions: number };
}
type VariantScore = { name: string; group: string; score: RetrievalScore; groups: Record<string, RetrievalScore> };

// LoCoMo paper, Table 3: DRAGON retriever over dialog turns.
export const DRAGON_ANCHOR = { "@5": 56.7, "@10": 66.2, "@25": 76.7, "@50": 82.7 };
const KS = ["@5", "@10", "@25", "@50"] as const;
const CATEGORY_NAMES: Record<string, string> = {
  "1": "1 multi-hop",
  "2": "2 temporal",
  "3": "3 open-domain",
  "4": "4 single-hop",
  "5": "5 adversarial",
};

const recallRow = (name: string, s: { recall: Record<string, number>; ndcg10: number; questions: number }) => [
  name,
  s.questions,
  ...KS.map((k) => s.recall[k]!),
  s.ndcg10,
];

export const retrieval: Part = {
  name: "retrieval",
  title: "Retrieval quality on LoCoMo",
  async run(log) {
    const locomo = loadLocomo();
    log(`LoCoMo: ${locomo.conversations.length} conversations, ${locomo.turns} turns, ${locomo.questions} questions`);
    const embeddings = await embeddingsEndpoint();
    const groups = conversationGroups(locomo.conversations);
    // The product row runs inside workerd while the raw-table ablation runs here beside it.
    const job = runJob<Omit<JobResult, "variants">>("retrieval", { conversations: locomo.conversations, groups, embeddings }, log);
    const variants: VariantScore[] = [];
    const all = [...VARIANTS.ladder.map((v) => ({ v, group: "ladder" })), ...VARIANTS.leaveOneOut.map((v) => ({ v, group: "leave-one-out" }))];
    for (const [i, { v, group }] of all.entries()) {
      const rankings = rankVariant(v, locomo.conversations);
      const byGroup = Object.fromEntries(Object.entries(groups).map(([g, ids]) => [g, scoreRetrieval(ids.flatMap((id): Ranking[] => rankings.get(id) ?? []))]));
      variants.push({ name: v.name, group, score: byGroup[ALL]!, groups: byGroup });
      log(`  raw FTS5 variant ${i + 1}/${all.length}: ${v.name}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const result = { ...(await job), variants };
    const naive = result.variants.find((v) => v.name === "naive")!.score;
    const e = result.edgemind.score;
    const header = ["system", "questions", "R@5", "R@10", "R@25", "R@50", "NDCG@10"];
    const ladder = result.variants.filter((v) => v.group === "ladder");
    const full = ladder[ladder.length - 1]!.score;
    const lines = [
      `Data: \`${LOCOMO_PATH.replace(/^.*\/shared\//, "shared/")}\` — ${locomo.conversations.length} conversations, ${locomo.turns} turns, ${locomo.questions} questions; ${locomo.malformedEvidence.length} malformed evidence ids skipped (${locomo.malformedEvidence.map((m) => `\`${m.id}\``).join(", ")}), ${locomo.questionsWithoutEvidence} questions left without evidence and not scored.`,
      "",
      "Each conversation is written into its own mind with `storeMemory` (src/memory/memories.ts, the write path of `POST /memory`): one memory per turn, key = dialog id, content = `speaker: text`, tag = session date, stated (`observed_at`) at the session's date and time, context = the turns before and after it in its session (the memory's `context` field, indexed at half weight). Each question goes through `searchMemories` (src/memory/search.ts, `GET /memory/search`), top 50. Turn-level evidence recall in %.",
      "",
      table(header, [
        recallRow("edgemind (storeMemory + searchMemories)", e),
        recallRow(`edgemind hybrid (full text + ${result.hybrid.model} by meaning)`, result.hybrid.score),
        recallRow("naive: raw FTS5 bm25, question words OR-ed", naive),
        ["LoCoMo paper: DRAGON, dialog turns (anchor)", "", ...KS.map((k) => DRAGON_ANCHOR[k]), "–"],
      ]),
      "",
      "The product's rows by group of conversations: parameters were chosen on conversations 0–4 only; 5–9 are held out.",
      "",
      table(header, [
        ...[ALL, TUNING, HELD_OUT].map((g) => recallRow(`edgemind, ${g}`, result.edgemind.groups[g]!)),
        ...[ALL, TUNING, HELD_OUT].map((g) => recallRow(`edgemind hybrid, ${g}`, result.hybrid.groups[g]!)),
      ]),
      "",
      `Hybrid: every turn embedded through the product's embedding path (its OpenAI-compatible embedder) with ${describeEndpoint(embeddings)}, an in-memory index in place of Vectorize, each question through retrieveMemories, which fuses both lists with meaning's votes weighing ×${MEANING_WEIGHT} (src/memory/fusion.ts; ${result.hybrid.fusedQuestions} of ${result.hybrid.score.questions} questions fused).`,
      "",
      "Per category (edgemind / naive):",
      "",
      table(
        ["category", "questions", "R@5", "R@10", "R@25", "R@50", "NDCG@10"],
        Object.keys(e.byCategory).map((c) => {
          const a = e.byCategory[c]!;
          const b = naive.byCategory[c]!;
          return [CATEGORY_NAMES[c] ?? c, a.questions, ...KS.map((k) => `${fmt(a.recall[k]!)} / ${fmt(b.recall[k]!)}`), `${fmt(a.ndcg10)} / ${fmt(b.ndcg10)}`];
        }),
      ),
      "",
      "Ablation on raw FTS5 tables (same data in one better-sqlite3 table, plain bm25, no priority or recency; bench/lib/ablation.ts, bench/lib/raw-fts.ts): ideas added one at a time, then each taken out of the full set. Δ is against the row above (ladder) or the full set (leave-one-out). The boosts (date-aware, phrase, proximity) re-rank twice as many bm25 candidates as are kept; per-column length normalisation scores in code (BM25F, k1 1.2).",
      "",
      table(
        ["variant", "R@5", "R@10", "R@25", "R@50", "NDCG@10", "Δ R@10", "Δ NDCG@10"],
        result.variants.map((v, i) => {
          const ref = v.group === "ladder" ? (i === 0 ? v.score : result.variants[i - 1]!.score) : full;
          return [v.name, ...KS.map((k) => v.score.recall[k]!), v.score.ndcg10, delta(v.score.recall["@10"]! - ref.recall["@10"]!), delta(v.score.ndcg10 - ref.ndcg10)];
        }),
      ),
      "",
      "Every variant by group of conversations, R@10 and R@50 (an idea is kept in the product only when it helps on 0–4; 5–9 are held out):",
      "",
      table(
        ["variant", ...[ALL, TUNING, HELD_OUT].flatMap((g) => [`R@10 ${g}`, `R@50 ${g}`])],
        result.variants.map((v) => [v.name, ...[ALL, TUNING, HELD_OUT].flatMap((g) => [v.groups[g]!.recall["@10"]!, v.groups[g]!.recall["@50"]!])]),
      ),
      "",
      "Which idea moved which category: the ladder's R@10 per question category, all ten (Δ against the row above):",
      "",
      table(
        ["variant", ...Object.keys(e.byCategory).map((c) => CATEGORY_NAMES[c] ?? c)],
        ladder.map((v, i) =>
          [v.name, ...Object.keys(e.byCategory).map((c) => {
            const r = v.score.byCategory[c]!.recall["@10"]!;
            return i === 0 ? fmt(r) : `${fmt(r)} (${delta(r - ladder[i - 1]!.score.byCategory[c]!.recall["@10"]!)})`;
          })],
        ),
      ),
      "",
      `Ingest through storeMemory: ${result.edgemind.ingest.turns} turns in ${fmt(result.edgemind.ingest.totalMs / 1000)} s (${fmt(result.edgemind.ingest.totalMs / result.edgemind.ingest.turns)} ms a turn, inside workerd on local D1).`,
    ];
    return { json: { locomo: { ...locomo, conversations: undefined }, ...result }, markdown: lines.join("\n") };
  },
};

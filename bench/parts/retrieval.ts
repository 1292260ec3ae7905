import { MEANING_WEIGHT } from "../../src/memory/fusion";
import { VARIANTS } from "../lib/ablation";
import type { Conversation } from "../lib/dataset";
import { describeEndpoint, embeddingsEndpoint } from "../lib/embeddings";
import type { Endpoint } from "../lib/endpoint";
import { LOCOMO_PATH, loadLocomo } from "../lib/locomo";
import { LONGMEMEVAL_PATH, loadLongMemEval } from "../lib/longmemeval";
import { KNOWLEDGE_UPDATE } from "../lib/longmemeval-kinds";
import type { LongMemEvalScore } from "../lib/longmemeval-metrics";
import type { Part } from "../lib/part";
import { plainBm25, rankVariant } from "../lib/raw-fts";
import { type Found, joined, type LocomoScores, type SetScores, scoreLme, scoreLocomo } from "../lib/retrieval-scores";
import { type AblationRow, ablation, byCategory, byGroup, byKind, goals, ladderByKind, type Row, sideBySide } from "../lib/retrieval-tables";
import { ALL, conversationGroups, HELD_OUT, TUNING } from "../lib/split";
import { fmt } from "../lib/table";
import { runJob } from "../lib/workerd";

interface JobResult<S> {
  edgemind: { scores: S; ingest: { turns: number; totalMs: number } };
  hybrid: { scores: S; model: string; fusedQuestions: number } | null;
}

/** `RETRIEVAL_HYBRID=0` leaves the hybrid rows out (most of the part's time): for iterating on full text. */
const withHybrid = process.env.RETRIEVAL_HYBRID !== "0";

/** Each data set in a runtime of its own (fresh databases, so the index's averages are the set's own), one after the other. */
async function jobs(sets: { locomo: Conversation[]; longmemeval: Conversation[] }, groups: Record<string, string[]>, embeddings: Endpoint | null, log: (line: string) => void) {
  const locomo = await runJob<JobResult<LocomoScores>>("retrieval", { set: "locomo", conversations: sets.locomo, groups, embeddings }, log);
  const longmemeval = await runJob<JobResult<LongMemEvalScore>>("retrieval", { set: "longmemeval", conversations: sets.longmemeval, groups: {}, embeddings }, log);
  return { locomo, longmemeval };
}

/** Every ablation variant on both sets, in node. */
async function ablationRows(sets: { locomo: Conversation[]; longmemeval: Conversation[] }, score: (found: { locomo: Found; longmemeval: Found }) => SetScores, log: (line: string) => void) {
  const all = [
    ...VARIANTS.ladder.map((v) => ({ v, group: "ladder" as const })),
    ...VARIANTS.leaveOneOut.map((v) => ({ v, group: "leave-one-out" as const })),
    ...VARIANTS.went.map((v) => ({ v, group: "went" as const })),
  ];
  const rows: AblationRow[] = [];
  for (const [i, { v, group }] of all.entries()) {
    rows.push({ name: v.name, group, scores: score({ locomo: rankVariant(v, sets.locomo), longmemeval: rankVariant(v, sets.longmemeval) }) });
    log(`  ablation ${i + 1}/${all.length}: ${v.name}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rows;
}

/** What the part found, as its JSON holds it: the markdown is written from this alone. */
export interface RetrievalFigures {
  locomo: Omit<ReturnType<typeof loadLocomo>, "conversations"> & { conversationCount: number };
  longmemeval: { sessions: number; turns: number; questions: number; questionsWithoutEvidence: number; knowledgeUpdates: number };
  systems: Row[];
  /** How the hybrid rows embedded, and how many questions they fused; null when left out. */
  hybrid: { embedder: string; fusedQuestions: number } | null;
  ablation: AblationRow[];
  ingest: { turns: number; totalMs: number }[];
}

export const retrieval: Part = {
  name: "retrieval",
  title: "Retrieval quality on LoCoMo and LongMemEval",
  async run(log) {
    const locomo = loadLocomo();
    const lme = loadLongMemEval();
    log(`LoCoMo: ${locomo.conversations.length} conversations, ${locomo.questions} questions; LongMemEval: ${lme.sessions} sessions, ${lme.conversation.turns.length} turns, ${lme.questions} questions`);
    const embeddings = withHybrid ? await embeddingsEndpoint() : null;
    const groups = conversationGroups(locomo.conversations);
    const sets = { locomo: locomo.conversations, longmemeval: [lme.conversation] };
    const score = (found: { locomo: Found; longmemeval: Found }) => joined(scoreLocomo(locomo.conversations, found.locomo, groups), scoreLme(lme.conversation, found.longmemeval));
    // The ablation runs after the jobs: beside them it would starve the local embedder of the cores.
    const job = await jobs(sets, groups, embeddings, log);
    const bm25: Row = { name: "plain bm25: FTS5's bm25() over the content alone, question words OR-ed", scores: score({ locomo: plainBm25(sets.locomo), longmemeval: plainBm25(sets.longmemeval) }) };
    const variants = await ablationRows(sets, score, log);
    const product: Row = { name: "edgemind full text (storeMemory + searchMemories)", scores: joined(job.locomo.edgemind.scores, job.longmemeval.edgemind.scores) };
    const [lh, mh] = [job.locomo.hybrid, job.longmemeval.hybrid];
    const hybrid: Row | null = lh && mh ? { name: `edgemind hybrid (full text + ${lh.model} by meaning)`, scores: joined(lh.scores, mh.scores) } : null;
    const { conversations: _c, ...locomoData } = locomo;
    const figures: RetrievalFigures = {
      locomo: { ...locomoData, conversationCount: locomo.conversations.length },
      longmemeval: {
        ...{ sessions: lme.sessions, turns: lme.conversation.turns.length, questions: lme.questions, questionsWithoutEvidence: lme.questionsWithoutEvidence },
        knowledgeUpdates: lme.conversation.questions.filter((q) => q.category === KNOWLEDGE_UPDATE).length,
      },
      systems: [product, ...(hybrid ? [hybrid] : []), bm25],
      hybrid: lh && mh && embeddings ? { embedder: describeEndpoint(embeddings), fusedQuestions: lh.fusedQuestions + mh.fusedQuestions } : null,
      ablation: variants,
      ingest: [job.locomo.edgemind.ingest, job.longmemeval.edgemind.ingest],
    };
    return { json: figures, markdown: retrievalMarkdown(figures) };
  },
};

/** The part's markdown, from its figures alone. */
export function retrievalMarkdown(f: RetrievalFigures): string {
  const [product, ...others] = f.systems;
  const bm25 = others.at(-1)!;
  const hybrid = others.length > 1 ? others[0]! : null;
  const questions = product!.scores.locomo.questions + product!.scores.longmemeval.questions;
  return [
    ...intro(f),
    sideBySide(f.systems),
    "",
    "The goals, for full text alone against the plain-bm25 row of this run:",
    "",
    goals(product!.scores, bm25.scores),
    "",
    f.hybrid
      ? `Hybrid: every turn embedded through the product's embedding path (its OpenAI-compatible embedder) with ${f.hybrid.embedder}, an in-memory index in place of Vectorize, each question through retrieveMemories, which fuses both lists with meaning's votes weighing ×${MEANING_WEIGHT} (src/memory/fusion.ts; ${f.hybrid.fusedQuestions} of ${questions} questions fused).`
      : "Hybrid rows left out (RETRIEVAL_HYBRID=0).",
    "",
    `LongMemEval by question kind (${f.systems.map((s) => s.name.split(" (")[0]!.split(":")[0]).join(" / ")}):`,
    "",
    byKind(f.systems),
    "",
    "LoCoMo by category (edgemind full text / plain bm25):",
    "",
    byCategory(product!.scores.locomo, bm25.scores.locomo),
    "",
    "LoCoMo by group of conversations: 0–4 were the only ones parameters were chosen on before LongMemEval joined; 5–9 were held out.",
    "",
    byGroup(hybrid ? [product!, hybrid] : [product!], [ALL, TUNING, HELD_OUT]),
    "",
    ...ablationText(f.ablation),
    "",
    `Ingest through storeMemory: ${f.ingest.map((x) => `${x.turns} turns in ${fmt(x.totalMs / 1000)} s (${fmt(x.totalMs / x.turns)} ms a turn)`).join("; ")}, inside workerd on local D1.`,
  ].join("\n");
}

function intro({ locomo, longmemeval: lme }: RetrievalFigures): string[] {
  return [
    `Data: \`${LOCOMO_PATH.replace(/^.*\/shared\//, "shared/")}\`: LoCoMo (Maharana et al., 2024; CC BY-NC 4.0), ${locomo.conversationCount} conversations, ${locomo.turns} turns, ${locomo.questions} questions; ${locomo.malformedEvidence.length} malformed evidence ids skipped (${locomo.malformedEvidence.map((m) => `\`${m.id}\``).join(", ")}), ${locomo.questionsWithoutEvidence} questions left without evidence and not scored. \`${LONGMEMEVAL_PATH.replace(/^.*\/shared\//, "shared/")}\`: the development half of LongMemEval (Wu et al., "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive Memory", ICLR 2025; MIT), oracle format, ${lme.questions} questions over ${lme.sessions} sessions and ${lme.turns} turns; ${lme.questionsWithoutEvidence} questions no turn answers (its abstention questions) not scored. The other half is held back as the measure and never read here.`,
    "",
    "Each LoCoMo conversation is one mind; LongMemEval's sessions are pooled, oldest first, in one mind. Every turn is written with `storeMemory` (src/memory/memories.ts, the write path of `POST /memory`): one memory per turn, category `context`, content `speaker: text` (`user: …`, `assistant: …` in LongMemEval), the session's date as its tag and as when it was stated (`observed_at`), the turns before and after it in its session as its context. Each question goes through `searchMemories` (src/memory/search.ts, `GET /memory/search`), top 50, asked at the moment LongMemEval says it was asked (LoCoMo gives none: asked now). Each data set runs in a runtime of its own.",
    "",
    `LoCoMo's recall@k is the share of a question's evidence turns among the first k hits. LongMemEval's, as its paper counts it, is whether a turn marked \`has_answer\` is among them (turn recall), and whether one of the question's answer sessions is among the first k hits' sessions (session recall). NDCG@10 has binary relevance, evidence turns relevant. **Newer first**: of the ${lme.knowledgeUpdates} knowledge-update questions, those whose evidence turns lie in two or more sessions; the share where the best-placed evidence turn of the latest of those sessions stands above the best-placed evidence turn of every earlier one among the 50 hits (an earlier session with none among them counts as below; the latest with none fails the question). Plain bm25: FTS5's \`bm25()\` (k1 1.2, b 0.75) over a better-sqlite3 table of each mind's turns, the content column alone, each question's distinct lower-case words OR-ed, no stemming, no stop words (bench/lib/raw-fts.ts). In %.`,
    "",
  ];
}

function ablationText(rows: AblationRow[]): string[] {
  return [
    "Ablation, both sets (bench/lib/ablation.ts, bench/lib/raw-fts.ts): the ranking ideas as switches, scored in code over the same turns (keys left out; no priority or recency: every turn is stored alike), each question's terms re-scored over the 200 best candidates as the product does. First the ladder from plain bm25 in code to the product, each idea added to the row above; then each idea taken out of the product; then ideas tried and dropped, each in place of the product's own. An idea stays only where it helps both sets, or costs the other at most 0.5 point at R@10. \"By the rule\" gives the idea's gain at R@10, with it against without it, on each set; for the ideas that went, the row against the product: whether the rule would have allowed it in the product's place (it went where the rule or the other measures, R@5 and newer first, said so; bench/README.md says why for each). Δ is against the row above (ladder) or the product.",
    "",
    ablation(rows),
    "",
    "Which idea moved which LongMemEval kind: the ladder's R@5 per kind (Δ against the row above):",
    "",
    ladderByKind(rows),
  ];
}

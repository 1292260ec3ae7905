import { ABLATION, assemblyRow } from "../lib/context-rows";
import { describeEndpoint, embeddingsEndpoint } from "../lib/embeddings";
import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { ALL, conversationGroups, HELD_OUT, TUNING } from "../lib/split";
import { delta, fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface Shares {
  questions: number;
  answerable: number;
  wholePercent: number;
  answerPercent: number;
  includedPercent: number;
  datedPercent: number;
}
type Figures = Shares & {
  contextTokensPerQuestion: number;
  fullTokensPerQuestion: number;
  partsPerQuestion: Record<string, { tokens: number; items: number }>;
  byCategory: Record<string, Shares>;
};
type JobResult = Record<string, Record<string, Figures>>;

const CATEGORIES: Record<string, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

// mem0 paper (LoCoMo): full-context prompts average 26,031 tokens; mem0's memories 1,764.
export const CONTEXT_ANCHOR = { fullContext: 26_031, mem0: 1_764 };

/**
 * `CONTEXT_CONVERSATIONS=tuning` runs conversations 0–4 alone (while choosing parameters);
 * `CONTEXT_ONLY=<regex>` only the rows whose name it matches.
 */
async function selection() {
  const locomo = loadLocomo();
  const all = conversationGroups(locomo.conversations);
  const tuningOnly = process.env.CONTEXT_CONVERSATIONS === "tuning";
  const groups = tuningOnly ? { [TUNING]: all[TUNING]! } : all;
  const conversations = locomo.conversations.filter((c) => Object.values(groups).some((ids) => ids.includes(c.id)));
  return { conversations, groups, only: process.env.CONTEXT_ONLY, embeddings: await embeddingsEndpoint() };
}

const pc = (v: number) => `${fmt(v)} %`;

export const context: Part = {
  name: "context",
  title: "Context on LoCoMo: what the model reads",
  async run(log) {
    const { conversations, groups, only, embeddings } = await selection();
    const r = await runJob<JobResult>("context", { conversations, groups, only, embeddings }, log);
    const present = [ALL, TUNING, HELD_OUT].filter((g) => r[g] !== undefined);
    const first = r[present[0]!]!;
    const names = Object.keys(first);
    const main = names.filter((n) => !n.startsWith(ABLATION));
    const ablation = names.filter((n) => n.startsWith(ABLATION));
    const c = first[names[0]!]!;
    const answerable = present.map((g) => `${r[g]![names[0]!]!.answerable} of ${r[g]![names[0]!]!.questions} in ${g}`).join(", ");
    const part = (x: Figures, p: string) => x.partsPerQuestion[p] ?? { tokens: 0, items: 0 };
    const framing = (x: Figures) => x.contextTokensPerQuestion - Object.values(x.partsPerQuestion).reduce((n, p) => n + p.tokens, 0);
    const product = assemblyRow(1500);
    const cats = Object.keys(CATEGORIES);
    const markdown = [
      `Tokens counted with cl100k (gpt-tokenizer, src/llm/tokens.ts), averaged over ${c.questions} LoCoMo questions (${present[0]}). Each turn is a memory written with \`storeMemory\`: content \`speaker: text\`, its session date as its tag and as when it was stated (\`observed_at\`), its neighbouring turns as its context. edgemind's context is what \`assembleContext\` (src/context/assemble.ts) gives a model for the question as the current message, without session dialogue: instructions and the memory block. The baseline is what a user would otherwise write: the hits of \`GET /memory/search\` (\`retrieveMemories\`) in rank order, each whole on its line with its tags (\`- content (tags)\`), as many as fit the budget (sources in bench/jobs/context.ts). Rows "with recall by meaning" search the same minds with every turn also embedded through the product's embedding path, with ${describeEndpoint(embeddings)} and an in-memory index in place of Vectorize: the assembly and the baseline then both fuse full text with meaning (src/memory/hybrid-search.ts).`,
      "",
      `What is measured is the text the model reads, each compared lower-cased with every run of characters other than letters and digits read as one space (bench/lib/context-measures.ts). **Evidence turns whole**: LoCoMo's evidence turns whose whole \`speaker: text\` stands in the context, as whole words. **Gold answer**: the questions whose LoCoMo \`answer\` occurs in the context, counted over the questions whose answer occurs in some turn of their conversation (${answerable}). **Evidence ids included**: evidence turns whose memory the context included in any form, cut or whole (the figure of earlier runs); a memory folded into a line already shown counts. **Temporal, evidence whole with its date**: the evidence turns of temporal questions whole in the context with their session date in it too (their answers sit in that date).`,
      "",
      table(
        ["context", "tokens per question", "share of full context", "evidence turns whole", "gold answer", "temporal: evidence whole with its date", "evidence ids included"],
        [
          ...main.map((n) => {
            const x = first[n]!;
            const share = pc((100 * x.contextTokensPerQuestion) / x.fullTokensPerQuestion);
            return [n, x.contextTokensPerQuestion, share, pc(x.wholePercent), pc(x.answerPercent), pc(x.datedPercent), pc(x.includedPercent)];
          }),
          ["full conversation (measured here)", c.fullTokensPerQuestion, "100 %", "100 %", "100 %", "100 %", "100 %"],
          ["full context, mem0 paper (anchor)", CONTEXT_ANCHOR.fullContext, "", "", "", "", ""],
          ["mem0, mem0 paper (anchor)", CONTEXT_ANCHOR.mem0, pc((100 * CONTEXT_ANCHOR.mem0) / CONTEXT_ANCHOR.fullContext), "", "", "", ""],
        ],
      ),
      "",
      "By group of conversations (parameters were chosen on 0–4; 5–9 are held out): evidence turns whole, gold answer, and the multi-hop questions' gold answer.",
      "",
      table(
        ["context", ...present.flatMap((g) => [`${g}: whole`, "answer", "multi-hop answer"])],
        names.map((n) => [n, ...present.flatMap((g) => [pc(r[g]![n]!.wholePercent), pc(r[g]![n]!.answerPercent), pc(r[g]![n]!.byCategory["1"]?.answerPercent ?? NaN)])]),
      ),
      "",
      `Where the tokens go (${present[0]}, per question): instructions, headings and the data block's frame, then each part's items with their cost.`,
      "",
      table(
        ["context", "tokens per question", "instructions and frame", "search: tokens", "items", "recall: tokens", "items", "cold: tokens"],
        main
          .filter((n) => Object.keys(first[n]!.partsPerQuestion).length > 0)
          .map((n) => {
            const x = first[n]!;
            return [n, x.contextTokensPerQuestion, framing(x), part(x, "search").tokens, part(x, "search").items, part(x, "recall").tokens, part(x, "recall").items, part(x, "cold").tokens];
          }),
      ),
      ...(ablation.length === 0 || first[product] === undefined
        ? []
        : [
            "",
            "Ablation of the packing at the 1,500-token budget: the product's row, then each idea taken out alone (its packing option set back), and the packing as it was before (with today's shorter instructions). Δ is against the product row. Order is not in the table: both measures read the text as a whole, so no order moves them; items stand in rank order, grouped under their heading in the order its first item came.",
            "",
            table(
              ["variant", "tokens per question", ...present.flatMap((g) => [`${g}: whole (Δ)`, "answer (Δ)", "temporal dated (Δ)"])],
              [product, ...ablation].map((n) => [
                n.startsWith(ABLATION) ? n.slice(ABLATION.length) : `product: ${n}`,
                first[n]!.contextTokensPerQuestion,
                ...present.flatMap((g) => {
                  const x = r[g]![n]!;
                  const p = r[g]![product]!;
                  const cell = (v: number, base: number) => (n === product ? pc(v) : `${pc(v)} (${delta(v - base)})`);
                  return [cell(x.wholePercent, p.wholePercent), cell(x.answerPercent, p.answerPercent), cell(x.datedPercent, p.datedPercent)];
                }),
              ]),
            ),
          ]),
      "",
      `By question category (${present[0]}): evidence turns whole / gold answer / evidence ids included; answerable questions per category: ${cats.map((k) => `${CATEGORIES[k]} ${c.byCategory[k]?.answerable ?? 0}`).join(", ")}.`,
      "",
      table(
        ["context", ...cats.map((k) => `${k} ${CATEGORIES[k]}`)],
        names.map((n) => [
          n,
          ...cats.map((k) => {
            const x = first[n]!.byCategory[k];
            return x === undefined ? "–" : `${fmt(x.wholePercent)} / ${fmt(x.answerPercent)} / ${fmt(x.includedPercent)}`;
          }),
        ]),
      ),
    ].join("\n");
    return { json: { anchor: CONTEXT_ANCHOR, groups, ...r }, markdown };
  },
};

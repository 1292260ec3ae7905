import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { ALL, conversationGroups, HELD_OUT, TUNING } from "../lib/split";
import { delta, fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

type Figures = {
  questions: number;
  contextTokensPerQuestion: number;
  fullTokensPerQuestion: number;
  evidenceInsidePercent: number;
  partsPerQuestion: Record<string, { tokens: number; items: number }>;
  evidenceInsideByCategory: Record<string, number>;
};
type JobResult = Record<string, Record<string, Figures>>;

// The job's ablation rows carry this prefix; they are shown in their own table.
const ABLATION = "ablation at 1,500: ";
const CATEGORIES: Record<string, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

// mem0 paper (LoCoMo): full-context prompts average 26,031 tokens; mem0's memories 1,764.
export const CONTEXT_ANCHOR = { fullContext: 26_031, mem0: 1_764 };

export const context: Part = {
  name: "context",
  title: "Context size on LoCoMo",
  async run(log) {
    const locomo = loadLocomo();
    const groups = conversationGroups(locomo.conversations);
    const r = await runJob<JobResult>("context", { conversations: locomo.conversations, groups }, log);
    const everything = r[ALL]!;
    const all = Object.fromEntries(Object.entries(everything).filter(([name]) => !name.startsWith(ABLATION)));
    const ablation = Object.keys(everything).filter((name) => name.startsWith(ABLATION));
    const assembly = Object.keys(all).filter((name) => Object.keys(all[name]!.partsPerQuestion).length > 0);
    const c = Object.values(all)[0]!;
    const part = (x: Figures, p: string) => x.partsPerQuestion[p] ?? { tokens: 0, items: 0 };
    const framing = (x: Figures) => x.contextTokensPerQuestion - Object.values(x.partsPerQuestion).reduce((n, p) => n + p.tokens, 0);
    const cats = Object.keys(CATEGORIES);
    const markdown = [
      `Tokens counted with cl100k (gpt-tokenizer, src/llm/tokens.ts), averaged over ${c.questions} LoCoMo questions. edgemind's context is what \`assembleContext\` (src/sessions/context.ts) gives a model for the question as the current message, without session dialogue: instructions plus the memory block (search hits, notes, recall, cold memory) packed by relevance into its token budget; beside it the bare top-10 \`searchMemories\` hits, one line each (sources in bench/jobs/context.ts). Each turn is a memory written with \`storeMemory\`, its neighbouring turns as its context. Full context: the whole conversation with session headers.`,
      "",
      table(
        ["context", "tokens per question", "share of full context", "evidence turns inside"],
        [
          ...Object.entries(all).map(([name, x]) => [name, x.contextTokensPerQuestion, `${fmt((100 * x.contextTokensPerQuestion) / x.fullTokensPerQuestion)} %`, `${fmt(x.evidenceInsidePercent)} %`]),
          ["full conversation (measured here)", c.fullTokensPerQuestion, "100 %", "100 %"],
          ["full context, mem0 paper (anchor)", CONTEXT_ANCHOR.fullContext, "", ""],
          ["mem0, mem0 paper (anchor)", CONTEXT_ANCHOR.mem0, `${fmt((100 * CONTEXT_ANCHOR.mem0) / CONTEXT_ANCHOR.fullContext)} %`, ""],
        ],
      ),
      "",
      "Evidence turns inside, by group of conversations (parameters were chosen on 0–4; 5–9 are held out):",
      "",
      table(
        ["context", `${ALL}: tokens`, "evidence inside", `${TUNING}: tokens`, "evidence inside", `${HELD_OUT}: tokens`, "evidence inside"],
        Object.keys(everything).map((name) => [
          name,
          ...[ALL, TUNING, HELD_OUT].flatMap((g) => [r[g]![name]!.contextTokensPerQuestion, `${fmt(r[g]![name]!.evidenceInsidePercent)} %`]),
        ]),
      ),
      "",
      `Where the tokens go (all ten, per question): instructions, headings and the data block's frame, then each part's items with their cost. Beside mem0's ${CONTEXT_ANCHOR.mem0.toLocaleString("en-US")} tokens per question.`,
      "",
      table(
        ["context", "tokens per question", "mem0 (anchor)", "instructions and frame", "search: tokens", "items", "recall: tokens", "items", "cold: tokens"],
        assembly.map((name) => {
          const x = all[name]!;
          return [name, x.contextTokensPerQuestion, CONTEXT_ANCHOR.mem0, framing(x), part(x, "search").tokens, part(x, "search").items, part(x, "recall").tokens, part(x, "recall").items, part(x, "cold").tokens];
        }),
      ),
      "",
      "Ablation of the packing at the 1,500-token budget: the product's row, then each idea taken out alone (its packing default changed back), and everything as it was before. Δ is against the product row; held-out conversations (5–9) beside all ten.",
      "",
      table(
        ["variant", "tokens per question", "evidence inside, all ten", "Δ", "conversations 0–4 (tuning)", "conversations 5–9 (held out)", "Δ held out"],
        ["edgemind context assembly, 1,500-token budget", ...ablation].map((name) => {
          const product = "edgemind context assembly, 1,500-token budget";
          const at = (g: string) => r[g]![name]!.evidenceInsidePercent;
          const change = (g: string) => at(g) - r[g]![product]!.evidenceInsidePercent;
          return [name.startsWith(ABLATION) ? name.slice(ABLATION.length) : `product: ${name}`, everything[name]!.contextTokensPerQuestion, `${fmt(at(ALL))} %`, delta(change(ALL)), `${fmt(at(TUNING))} %`, `${fmt(at(HELD_OUT))} %`, delta(change(HELD_OUT))];
        }),
      ),
      "",
      "Evidence turns inside by question category (all ten):",
      "",
      table(
        ["context", ...cats.map((k) => `${k} ${CATEGORIES[k]}`)],
        Object.keys(everything).map((name) => [name, ...cats.map((k) => `${fmt(everything[name]!.evidenceInsideByCategory[k] ?? NaN)} %`)]),
      ),
    ].join("\n");
    return { json: { anchor: CONTEXT_ANCHOR, groups, ...r }, markdown };
  },
};

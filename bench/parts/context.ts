import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { ALL, conversationGroups, HELD_OUT, TUNING } from "../lib/split";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

type Figures = { questions: number; contextTokensPerQuestion: number; fullTokensPerQuestion: number; evidenceInsidePercent: number };
type JobResult = Record<string, Record<string, Figures>>;

// mem0 paper (LoCoMo): full-context prompts average 26,031 tokens; mem0's memories 1,764.
export const CONTEXT_ANCHOR = { fullContext: 26_031, mem0: 1_764 };

export const context: Part = {
  name: "context",
  title: "Context size on LoCoMo",
  async run(log) {
    const locomo = loadLocomo();
    const groups = conversationGroups(locomo.conversations);
    const r = await runJob<JobResult>("context", { conversations: locomo.conversations, groups }, log);
    const all = r[ALL]!;
    const c = Object.values(all)[0]!;
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
        Object.keys(all).map((name) => [
          name,
          ...[ALL, TUNING, HELD_OUT].flatMap((g) => [r[g]![name]!.contextTokensPerQuestion, `${fmt(r[g]![name]!.evidenceInsidePercent)} %`]),
        ]),
      ),
    ].join("\n");
    return { json: { anchor: CONTEXT_ANCHOR, groups, ...r }, markdown };
  },
};

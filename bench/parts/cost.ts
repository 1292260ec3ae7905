import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface JobResult {
  context: Record<string, { questions: number; contextTokensPerQuestion: number; fullTokensPerQuestion: number; evidenceInsidePercent: number }>;
  scripted: {
    messages: number;
    extractEvery: number;
    notes: number;
    foldedNotes: number;
    ledger: { purpose: string; calls: number; inputTokens: number; outputTokens: number }[];
  };
}

// mem0 paper (LoCoMo): full-context prompts average 26,031 tokens; mem0's memories 1,764.
const ANCHOR = { fullContext: 26_031, mem0: 1_764 };

export const cost: Part = {
  name: "cost",
  title: "Context size and model cost",
  async run(log) {
    const locomo = loadLocomo();
    const r = await runJob<JobResult>("cost", { conversations: locomo.conversations, messages: 100, extractEvery: 20 }, log);
    const rows = Object.entries(r.context);
    const c = rows[0]![1];
    const per100 = (n: number) => (n * 100) / r.scripted.messages;
    const total = r.scripted.ledger.reduce(
      (s, row) => ({ calls: s.calls + row.calls, input: s.input + row.inputTokens, output: s.output + row.outputTokens }),
      { calls: 0, input: 0, output: 0 },
    );
    const markdown = [
      `Tokens counted with cl100k (gpt-tokenizer, src/llm/tokens.ts), averaged over ${c.questions} LoCoMo questions. edgemind's context is what \`assembleContext\` (src/sessions/context.ts) gives a model for the question as the current message, without session dialogue: instructions plus the memory block (search hits, recall, cold memory) fitted to its token budget; beside it the bare top-10 \`searchMemories\` hits, one line each (sources in bench/jobs/context.ts). Full context: the whole conversation with session headers.`,
      "",
      table(
        ["context", "tokens per question", "share of full context", "evidence turns inside"],
        [
          ...rows.map(([name, x]) => [name, x.contextTokensPerQuestion, `${fmt((100 * x.contextTokensPerQuestion) / x.fullTokensPerQuestion)} %`, `${fmt(x.evidenceInsidePercent)} %`]),
          ["full conversation (measured here)", c.fullTokensPerQuestion, "100 %", "100 %"],
          ["full context, mem0 paper (anchor)", ANCHOR.fullContext, "", ""],
          ["mem0, mem0 paper (anchor)", ANCHOR.mem0, `${fmt((100 * ANCHOR.mem0) / ANCHOR.fullContext)} %`, ""],
        ],
      ),
      "",
      `Model calls for a scripted conversation of ${r.scripted.messages} messages (LoCoMo turns): extraction every ${r.scripted.extractEvery} messages (\`extractNotes\` + \`saveExtraction\`, src/notes/extraction.ts), then one consolidation (\`consolidateNotes\`, src/notes/consolidate.ts), through the AI SDK with the scripted model of test/support/scripted-model.ts counting the tokens it is sent and answers; figures read back from the \`llm_usage\` ledger. ${r.scripted.notes} notes written, ${r.scripted.foldedNotes} folded into cold memory.`,
      "",
      table(
        ["purpose", "calls", "input tokens", "output tokens", "calls per 100 messages", "tokens per 100 messages"],
        [
          ...r.scripted.ledger.map((row) => [row.purpose, fmt(row.calls, 0), fmt(row.inputTokens, 0), fmt(row.outputTokens, 0), fmt(per100(row.calls), 0), fmt(per100(row.inputTokens + row.outputTokens), 0)]),
          ["total", fmt(total.calls, 0), fmt(total.input, 0), fmt(total.output, 0), fmt(per100(total.calls), 0), fmt(per100(total.input + total.output), 0)],
        ],
      ),
    ].join("\n");
    return { json: { anchor: ANCHOR, ...r }, markdown };
  },
};

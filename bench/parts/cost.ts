import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface JobResult {
  scripted: {
    messages: number;
    extractEvery: number;
    heldMemories: number;
    notes: number;
    foldedNotes: number;
    ledger: { purpose: string; calls: number; inputTokens: number; outputTokens: number }[];
  };
}

export const cost: Part = {
  name: "cost",
  title: "Model cost of extraction and consolidation",
  async run(log) {
    const locomo = loadLocomo();
    const r = await runJob<JobResult>("cost", { conversations: locomo.conversations, messages: 100, extractEvery: 20 }, log);
    const per100 = (n: number) => (n * 100) / r.scripted.messages;
    const total = r.scripted.ledger.reduce(
      (s, row) => ({ calls: s.calls + row.calls, input: s.input + row.inputTokens, output: s.output + row.outputTokens }),
      { calls: 0, input: 0, output: 0 },
    );
    const markdown = [
      `Model calls for a scripted conversation of ${r.scripted.messages} messages (LoCoMo turns): extraction every ${r.scripted.extractEvery} messages (\`extractNotes\` + \`saveExtraction\`, src/notes/extraction.ts), then one consolidation (\`consolidateNotes\`, src/notes/consolidate.ts), through the AI SDK with the scripted model of test/support/scripted-model.ts counting the tokens it is sent and answers; figures read back from the \`llm_usage\` ledger. The mind already holds ${r.scripted.heldMemories} memories (the conversation's next turns), so each extraction is shown those on what its messages talk about, within its bound (src/notes/known-memories.ts). ${r.scripted.notes} notes written, ${r.scripted.foldedNotes} folded into cold memory.`,
      "",
      table(
        ["purpose", "calls", "input tokens", "output tokens", "calls per 100 messages", "tokens per 100 messages"],
        [
          ...r.scripted.ledger.map((row) => [row.purpose, fmt(row.calls, 0), fmt(row.inputTokens, 0), fmt(row.outputTokens, 0), fmt(per100(row.calls), 0), fmt(per100(row.inputTokens + row.outputTokens), 0)]),
          ["total", fmt(total.calls, 0), fmt(total.input, 0), fmt(total.output, 0), fmt(per100(total.calls), 0), fmt(per100(total.input + total.output), 0)],
        ],
      ),
    ].join("\n");
    return { json: r, markdown };
  },
};

import { env } from "cloudflare:workers";
import { it } from "vitest";
import { usageSince } from "../../src/llm/ledger";
import { loadTokenCounter } from "../../src/llm/tokens";
import { consolidateNotes } from "../../src/notes/consolidate";
import { extractNotes, saveExtraction, type PlainMessage } from "../../src/notes/extraction";
import { foldingTurn } from "../../test/support/long-term";
import { scriptedModel, section } from "../../test/support/scripted-model";
import { turnContent, type Conversation } from "../lib/dataset";
import { benchDeps, ingestConversation, newMindScope } from "./bench-deps";
import { assembled, topSearchHits, type ContextSource } from "./context";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as { conversations: Conversation[]; messages: number; extractEvery: number };

/** The whole conversation as one prompt would hold it: session headers, then every turn. */
function fullConversation(c: Conversation): string {
  const lines: string[] = [];
  let session = 0;
  for (const t of c.turns) {
    if (t.session !== session) lines.push(`\nSession ${(session = t.session)} (${t.date})`);
    lines.push(turnContent(t));
  }
  return lines.join("\n");
}

/** Tokens of what each context source hands over per question, against the whole conversation. */
async function contextTokens(sources: Record<string, ContextSource>) {
  const deps = benchDeps();
  const countTokens = await loadTokenCounter();
  const names = Object.keys(sources);
  const totals = Object.fromEntries(names.map((n) => [n, { questions: 0, contextTokens: 0, fullTokens: 0, evidence: 0, inside: 0 }]));
  for (const c of input.conversations) {
    const scope = await newMindScope(c.id);
    await ingestConversation(deps, scope, c);
    const fullTokens = countTokens(fullConversation(c));
    for (const q of c.questions) {
      for (const name of names) {
        const context = await sources[name]!(deps, scope, q.text);
        const t = totals[name]!;
        t.questions++;
        t.contextTokens += countTokens(context.text);
        t.fullTokens += fullTokens;
        t.evidence += q.evidence.length;
        t.inside += q.evidence.filter((id) => context.turnIds.includes(id)).length;
      }
    }
    progress(`context: ${c.id}`);
  }
  return Object.fromEntries(
    names.map((n) => {
      const t = totals[n]!;
      return [
        n,
        {
          questions: t.questions,
          contextTokensPerQuestion: t.contextTokens / t.questions,
          fullTokensPerQuestion: t.fullTokens / t.questions,
          evidenceInsidePercent: (100 * t.inside) / t.evidence,
        },
      ];
    }),
  );
}

// A scripted extraction answer: one note for every user message it was shown, as a model
// that keeps what the user says about themselves would write.
const extractionTurn = (prompt: string) =>
  JSON.stringify({
    notes: section(prompt, "conversation")
      .map((line) => /^#(\d+) user: (.*)$/.exec(line))
      .filter((m) => m !== null)
      .slice(0, 30)
      .map((m) => ({ text: m[2]!.slice(0, 394), section: "context", signal: "fact", from: [Number(m[1])] })),
  });

/** Extraction every `extractEvery` messages over a scripted conversation, then one consolidation. */
async function scriptedConversation() {
  const deps = benchDeps();
  const scope = await newMindScope("scripted");
  const turns = input.conversations[0]!.turns.slice(0, input.messages);
  const messages: PlainMessage[] = turns.map((t, i) => ({
    id: `m${String(i).padStart(4, "0")}`,
    role: i % 2 === 0 ? "user" : "assistant",
    content: t.text,
  }));
  const extraction = scriptedModel([extractionTurn], "counted");
  let cursor: string | null = null;
  let notes = 0;
  for (let end = input.extractEvery; end <= messages.length; end += input.extractEvery) {
    const batch = messages.slice(end - input.extractEvery, end);
    const job = { mindId: scope.mindId, agent: "default", sessionId: "ses_bench", cursor, messages: batch };
    const plan = await extractNotes({ ...deps, llm: extraction.model }, job);
    if (plan.status !== "extracted") throw new Error(`extraction: ${plan.status}`);
    notes += (await saveExtraction(deps, job, plan)).written;
    cursor = plan.cursor;
  }
  const consolidation = scriptedModel([foldingTurn], "counted");
  const outcome = await consolidateNotes({ ...deps, llm: consolidation.model }, { mindId: scope.mindId, agent: "default" });
  if (outcome.status !== "done") throw new Error(`consolidation: ${outcome.status}`);
  const ledger = await usageSince(deps, scope.mindId, "2000-01-01");
  return { messages: messages.length, extractEvery: input.extractEvery, notes, foldedNotes: outcome.foldedNotes, ledger };
}

it("context size and model cost", async () => {
  const context = await contextTokens({
    "edgemind context assembly, default budget (4,000)": assembled(4000),
    "edgemind context assembly, 1,500-token budget": assembled(1500),
    "edgemind top-10 search hits": topSearchHits(10),
  });
  const scripted = await scriptedConversation();
  report({ context, scripted });
});

import { env } from "cloudflare:workers";
import { it } from "vitest";
import { loadTokenCounter } from "../../src/llm/tokens";
import { turnContent, type Conversation } from "../lib/dataset";
import { benchDeps, ingestConversation, newMindScope } from "./bench-deps";
import { assembled, topSearchHits, type ContextSource } from "./context";
import { progress, report } from "./report";

/** Names of the ablation's rows start with this; each departs from the product's packing in one way. */
const ABLATION = "ablation at 1,500: ";
const BEFORE = { markVerified: true, trim: false, tokensPerHit: 40, maxHits: 100, groupLabels: false, tagLift: false };

const input = env.BENCH_INPUT as { conversations: Conversation[]; groups: Record<string, string[]> };

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

interface Totals {
  questions: number;
  contextTokens: number;
  fullTokens: number;
  evidence: number;
  inside: number;
  parts: Record<string, { tokens: number; items: number }>;
  categories: Record<string, { evidence: number; inside: number }>;
}

const perQuestion = (t: Totals, n: number) => +(n / t.questions).toFixed(1);

const summary = (t: Totals) => ({
  questions: t.questions,
  contextTokensPerQuestion: t.contextTokens / t.questions,
  fullTokensPerQuestion: t.fullTokens / t.questions,
  evidenceInsidePercent: (100 * t.inside) / t.evidence,
  partsPerQuestion: Object.fromEntries(Object.entries(t.parts).map(([p, x]) => [p, { tokens: perQuestion(t, x.tokens), items: perQuestion(t, x.items) }])),
  evidenceInsideByCategory: Object.fromEntries(Object.entries(t.categories).map(([c, x]) => [c, (100 * x.inside) / x.evidence])),
});

/**
 * Tokens of what each context source hands over per question, against the whole conversation,
 * and the share of evidence turns inside; for every group of conversations (all, tuning, held out).
 */
async function contextTokens(sources: Record<string, ContextSource>) {
  const deps = benchDeps();
  const countTokens = await loadTokenCounter();
  const names = Object.keys(sources);
  const empty = (): Totals => ({ questions: 0, contextTokens: 0, fullTokens: 0, evidence: 0, inside: 0, parts: {}, categories: {} });
  const totals = Object.fromEntries(Object.keys(input.groups).map((g) => [g, Object.fromEntries(names.map((n) => [n, empty()]))]));
  for (const c of input.conversations) {
    const scope = await newMindScope(c.id, deps);
    await ingestConversation(deps, scope, c);
    const fullTokens = countTokens(fullConversation(c));
    const groups = Object.keys(input.groups).filter((g) => input.groups[g]!.includes(c.id));
    for (const q of c.questions) {
      for (const name of names) {
        const context = await sources[name]!(deps, scope, q.text);
        const tokens = countTokens(context.text);
        const inside = q.evidence.filter((id) => context.turnIds.includes(id)).length;
        for (const g of groups) {
          const t = totals[g]![name]!;
          t.questions++;
          t.contextTokens += tokens;
          t.fullTokens += fullTokens;
          t.evidence += q.evidence.length;
          t.inside += inside;
          const category = (t.categories[q.category] ??= { evidence: 0, inside: 0 });
          category.evidence += q.evidence.length;
          category.inside += inside;
          for (const [part, x] of Object.entries(context.parts ?? {})) {
            const sum = (t.parts[part] ??= { tokens: 0, items: 0 });
            sum.tokens += x.tokens;
            sum.items += x.items;
          }
        }
      }
    }
    progress(`context: ${c.id}`);
  }
  return Object.fromEntries(
    Object.entries(totals).map(([g, byName]) => [g, Object.fromEntries(Object.entries(byName).map(([n, t]) => [n, summary(t)]))]),
  );
}

it("context size", async () => {
  report(
    await contextTokens({
      "edgemind context assembly, default budget (4,000)": assembled(4000),
      "edgemind context assembly, 1,500-token budget": assembled(1500),
      "edgemind top-10 search hits": topSearchHits(10),
      [`${ABLATION}as before: every item marked, whole memories, a hit per 40 tokens up to 100, every label on its line, no tag lift`]: assembled(1500, BEFORE),
      [`${ABLATION}− verified items unmarked (every item marked)`]: assembled(1500, { markVerified: true }),
      [`${ABLATION}− trimmed to the matching sentences (whole memories)`]: assembled(1500, { trim: false }),
      [`${ABLATION}− more hits (a hit per 25 tokens, as before)`]: assembled(1500, { tokensPerHit: 25 }),
      [`${ABLATION}− labels grouped (category/key on every line)`]: assembled(1500, { groupLabels: false }),
      [`${ABLATION}− hits sharing the leading hits' tags lifted`]: assembled(1500, { tagLift: false }),
    }),
  );
});

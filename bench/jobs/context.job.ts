import { env } from "cloudflare:workers";
import { it } from "vitest";
import type { Semantic } from "../../src/embeddings/ports";
import { loadTokenCounter } from "../../src/llm/tokens";
import { add, emptyTally, measurable, reading, shares, type Tally } from "../lib/context-measures";
import { MEANING_MARK } from "../lib/context-rows";
import { type Conversation, turnContent } from "../lib/dataset";
import type { Endpoint } from "../lib/endpoint";
import { benchDeps, embedMind, ingestConversation, newMindScope, semanticOver } from "./bench-deps";
import type { ContextSource } from "./context";
import { contextSources } from "./context-sources";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as { conversations: Conversation[]; groups: Record<string, string[]>; only?: string; embeddings: Endpoint };

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
  contextTokens: number;
  fullTokens: number;
  tally: Tally;
  parts: Record<string, { tokens: number; items: number }>;
  categories: Record<string, Tally>;
}

const perQuestion = (t: Totals, n: number) => +(n / t.tally.questions).toFixed(1);

const summary = (t: Totals) => ({
  ...shares(t.tally),
  contextTokensPerQuestion: t.contextTokens / t.tally.questions,
  fullTokensPerQuestion: t.fullTokens / t.tally.questions,
  partsPerQuestion: Object.fromEntries(Object.entries(t.parts).map(([p, x]) => [p, { tokens: perQuestion(t, x.tokens), items: perQuestion(t, x.items) }])),
  byCategory: Object.fromEntries(Object.entries(t.categories).map(([c, x]) => [c, shares(x)])),
});

/**
 * What each context source hands over per question: its tokens against the whole conversation's,
 * the evidence turns whose whole text it holds, the gold answer in it, the evidence ids it
 * included; for every group of conversations (all, tuning, held out) and by question category.
 */
async function measure(sources: Record<string, ContextSource>, semantic: Semantic | null) {
  const deps = benchDeps();
  const countTokens = await loadTokenCounter();
  const names = Object.keys(sources);
  const empty = (): Totals => ({ contextTokens: 0, fullTokens: 0, tally: emptyTally(), parts: {}, categories: {} });
  const totals = Object.fromEntries(Object.keys(input.groups).map((g) => [g, Object.fromEntries(names.map((n) => [n, empty()]))]));
  for (const c of input.conversations) {
    const scope = await newMindScope(c.id, deps);
    await ingestConversation(deps, scope, c);
    if (semantic) await embedMind({ ...deps, semantic }, scope);
    const m = measurable(c);
    const fullTokens = countTokens(fullConversation(c));
    const groups = Object.keys(input.groups).filter((g) => input.groups[g]!.includes(c.id));
    for (const [index, q] of c.questions.entries()) {
      for (const name of names) {
        const context = await sources[name]!(deps, scope, q.text);
        const tokens = countTokens(context.text);
        const r = reading(m, q, index, context.text, context.turnIds);
        for (const g of groups) {
          const t = totals[g]![name]!;
          t.contextTokens += tokens;
          t.fullTokens += fullTokens;
          add(t.tally, r);
          add((t.categories[q.category] ??= emptyTally()), r);
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

it("context on LoCoMo", async () => {
  const only = input.only ? new RegExp(input.only) : null;
  const semantic = semanticOver(input.embeddings);
  const sources = Object.fromEntries(Object.entries(contextSources(semantic)).filter(([name]) => only === null || only.test(name)));
  // The minds are embedded only when a row chosen searches by meaning.
  report(await measure(sources, Object.keys(sources).some((name) => name.includes(MEANING_MARK)) ? semantic : null));
});

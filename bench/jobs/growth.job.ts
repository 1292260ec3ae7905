import { env } from "cloudflare:workers";
import { it } from "vitest";
import { recallMemories } from "../../src/memory/recall";
import { searchMemories } from "../../src/memory/search";
import type { MindContext } from "../../src/tenancy/mind-context";
import { type CapturedQuery, GROWTH_FILL, GROWTH_TEXT_INSERT, GROWTH_TEXTS_TABLE, type GrowthInput, type GrowthResult, growthFillParams, growthText } from "../lib/growth-data";
import { benchDeps, inMind, mindD1, newMindScope } from "./bench-deps";
import { recordingD1 } from "./recording-d1";
import { progress, report } from "./report";
import { singleMatchSearch } from "./single-match-search";

const input = env.BENCH_INPUT as GrowthInput;
// Rows go in through bounded ranges generated inside SQLite: binding 100k rows from JavaScript
// in batches brought the local workerd down (a V8 fatal error) after some 50k rows.
const RANGE = 10_000;
const WARM_UP = 10;
// Calls whose statements are captured for rows_read and for the raw SQLite replay.
const CAPTURED = 50;

/** rows_read as D1 reports it in the result meta, summed over the statements of each captured call, in the mind's database. */
async function rowsRead(
  d1: D1Database,
  { captured, statementsPerCall }: { captured: CapturedQuery[]; statementsPerCall: number[] },
): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  for (const count of statementsPerCall) {
    let rows = 0;
    for (const q of captured.slice(next, next + count)) rows += (await d1.prepare(q.sql).bind(...q.params).all()).meta.rows_read;
    out.push(rows);
    next += count;
  }
  return out;
}

/** SQLite's plan for a statement, when D1 allows asking for it. */
async function queryPlan(d1: D1Database, q: CapturedQuery): Promise<string> {
  try {
    const { results } = await d1.prepare(`explain query plan ${q.sql}`).bind(...q.params).all<{ detail: string }>();
    return results.map((r) => r.detail).join("; ");
  } catch (error) {
    return `not available: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Times `run` once per query; the statements of the timed calls are captured. */
async function measure(count: number, captureCount: number, run: (i: number, deps: ReturnType<typeof benchDeps>) => Promise<unknown>) {
  const captured: CapturedQuery[] = [];
  const recording = benchDeps({ wrap: (d1) => recordingD1(d1, captured) });
  const plain = benchDeps();
  for (let i = 0; i < WARM_UP; i++) await run(i, plain);
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run(i, plain);
    ms.push(performance.now() - t0);
  }
  // The same calls once more through the recording handle, to learn their SQL and rows read.
  const statementsPerCall: number[] = [];
  for (let i = 0; i < captureCount; i++) {
    const before = captured.length;
    await run(i, recording);
    statementsPerCall.push(captured.length - before);
  }
  return { ms, captured, statementsPerCall };
}

it("search and recall as a mind grows", async () => {
  const scope: MindContext = await newMindScope(`growth-${input.size}`);
  // The generated rows go into the database that holds the mind, as the Worker would find it.
  const d1 = mindD1(benchDeps(), scope);
  const text = d1.prepare(GROWTH_TEXT_INSERT);
  await d1.exec(GROWTH_TEXTS_TABLE);
  await d1.batch(input.texts.map((t, i) => text.bind(...growthText(scope.mind.id, i, t))));
  const t0 = Date.now();
  const fill = d1.prepare(GROWTH_FILL);
  for (let first = 0; first < input.size; first += RANGE) {
    await fill.bind(...growthFillParams(scope.mind.id, first, Math.min(input.size, first + RANGE), input.texts.length)).run();
    progress(`${input.size}: inserted ${Math.min(input.size, first + RANGE)}`);
  }
  const insertMs = Date.now() - t0;
  progress(`${input.size}: ${input.size} memories in ${insertMs} ms; measuring`);

  const question = (i: number) => input.questions[i % input.questions.length]!;
  const search = await measure(input.queries, CAPTURED, (i, deps) => searchMemories(inMind(deps, scope), { q: question(i), limit: 20 }));
  // The product's search and the one-MATCH statement it replaced, call by call in turn, so load
  // that comes and goes weighs on both alike.
  const pair: Record<"product" | "singleMatch", number[]> = { product: [], singleMatch: [] };
  const plain = inMind(benchDeps(), scope);
  const runs = {
    product: (i: number) => searchMemories(plain, { q: question(i), limit: 20 }),
    singleMatch: (i: number) => singleMatchSearch(plain, { q: question(i), limit: 20 }),
  };
  for (let i = 0; i < input.queries; i++) {
    for (const name of i % 2 === 0 ? (["product", "singleMatch"] as const) : (["singleMatch", "product"] as const)) {
      const t0 = performance.now();
      await runs[name](i);
      pair[name].push(performance.now() - t0);
    }
  }
  progress(`${input.size}: search beside the one-MATCH statement done`);
  const recallCall = (_i: number, deps: ReturnType<typeof benchDeps>) => recallMemories(inMind(deps, scope), { limit: 100 });
  const recall = await measure(input.queries, CAPTURED, recallCall);
  const plan = await queryPlan(d1, recall.captured[0]!);
  // The same recall once more without the recall index of migration 0006, to show what it changes.
  await d1.exec("drop index memories_mind_recall");
  const unindexed = await measure(Math.min(input.queries, 50), CAPTURED, recallCall);
  const result: GrowthResult = {
    size: input.size,
    mindId: scope.mind.id,
    accountId: scope.scope.principal.kind === "human" ? scope.scope.principal.accountId : "",
    insertMs,
    search: { ms: search.ms, rowsRead: await rowsRead(d1, search), captured: search.captured, statementsPerCall: search.statementsPerCall },
    searchBesideSingleMatch: pair,
    recall: { ms: recall.ms, rowsRead: await rowsRead(d1, recall), captured: recall.captured, statementsPerCall: recall.statementsPerCall },
    recallPlan: plan,
    recallWithoutIndex: { ms: unindexed.ms, rowsRead: await rowsRead(d1, unindexed) },
  };
  report(result);
});

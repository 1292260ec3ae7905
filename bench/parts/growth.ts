import { performance } from "node:perf_hooks";
import { type CapturedQuery, GROWTH_FILL, GROWTH_TEXT_INSERT, GROWTH_TEXTS_TABLE, type GrowthInput, type GrowthResult, growthFillParams, growthText } from "../lib/growth-data";
import { loadLocomo } from "../lib/locomo";
import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { migratedSqlite, sqliteParams } from "../lib/sqlite";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const QUERIES = 200;

interface Timing {
  p50: number;
  p95: number;
  mean: number;
}
const timing = (ms: number[]): Timing => ({ p50: percentile(ms, 50), p95: percentile(ms, 95), mean: ms.reduce((a, b) => a + b, 0) / ms.length });
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The same rows in raw SQLite, and the captured statements sent to it, timed. */
function rawSqlite(job: GrowthResult, input: GrowthInput) {
  const db = migratedSqlite();
  const now = new Date().toISOString();
  db.prepare("insert into accounts (id, name, created_at) values (?, ?, ?)").run(job.accountId, "bench", now);
  db.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?, ?, ?, ?, ?)").run(job.mindId, job.accountId, "bench", now, now);
  db.exec(GROWTH_TEXTS_TABLE);
  const text = db.prepare(GROWTH_TEXT_INSERT);
  db.transaction(() => input.texts.forEach((t, i) => text.run(...growthText(job.mindId, i, t))))();
  db.prepare(GROWTH_FILL).run(...growthFillParams(job.mindId, 0, input.size, input.texts.length));
  // Each call's statements, run one after the other and timed together.
  const time = ({ captured, statementsPerCall }: { captured: CapturedQuery[]; statementsPerCall: number[] }) => {
    const statements = captured.map((q) => ({ stmt: db.prepare(q.sql), params: sqliteParams(q.params) }));
    for (const s of statements.slice(0, 10)) s.stmt.all(...s.params);
    let next = 0;
    return statementsPerCall.map((count) => {
      const t0 = performance.now();
      for (const s of statements.slice(next, next + count)) s.stmt.all(...s.params);
      next += count;
      return performance.now() - t0;
    });
  };
  const result = { search: timing(time(job.search)), recall: timing(time(job.recall)), recallWithoutIndex: { p50: NaN, p95: NaN, mean: NaN } };
  db.exec("drop index memories_mind_recall");
  result.recallWithoutIndex = timing(time(job.recall));
  db.close();
  return result;
}

export const growth: Part = {
  name: "growth",
  title: "Search and recall latency as one mind grows",
  async run(log) {
    const locomo = loadLocomo();
    const texts = locomo.conversations.flatMap((c) => c.turns.map((t) => `${t.speaker}: ${t.text}`));
    const questions = locomo.conversations.flatMap((c) => c.questions.map((q) => q.text));
    const rows: Record<string, unknown>[] = [];
    const failures: string[] = [];
    for (const size of SIZES) {
      const input: GrowthInput = { size, texts, questions, queries: QUERIES };
      try {
        const job = await runJob<GrowthResult>("growth", input, log);
        const raw = rawSqlite(job, input);
        rows.push({
          size,
          insertMs: job.insertMs,
          search: { workerd: timing(job.search.ms), rowsRead: mean(job.search.rowsRead), sqlite: raw.search },
          recall: { workerd: timing(job.recall.ms), rowsRead: mean(job.recall.rowsRead), sqlite: raw.recall },
          recallWithoutIndex: { workerd: timing(job.recallWithoutIndex.ms), rowsRead: mean(job.recallWithoutIndex.rowsRead), sqlite: raw.recallWithoutIndex },
          searchBesideSingleMatch: { product: timing(job.searchBesideSingleMatch.product), singleMatch: timing(job.searchBesideSingleMatch.singleMatch) },
          recallPlan: job.recallPlan,
          searchSql: job.search.captured.slice(0, job.search.statementsPerCall[0]).map((q) => q.sql),
          recallSql: job.recall.captured[0]?.sql,
        });
        log(`growth ${size}: done`);
      } catch (error) {
        failures.push(`${size}: ${error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error)}`);
      }
    }
    type Row = { size: number; insertMs: number; search: Op; recall: Op; recallWithoutIndex: Op; searchBesideSingleMatch: { product: Timing; singleMatch: Timing } };
    type Op = { workerd: Timing; rowsRead: number; sqlite: Timing };
    const body = (rows as Row[]).flatMap((r) =>
      (["search", "recall", "recallWithoutIndex"] as const).map((op) => [
        fmt(r.size, 0),
        op === "recallWithoutIndex" ? "recall without the 0006 index" : op,
        r[op].workerd.p50,
        r[op].workerd.p95,
        r[op].workerd.mean,
        fmt(r[op].rowsRead, 0),
        fmt(r[op].sqlite.p50, 2),
        fmt(r[op].sqlite.p95, 2),
        `${fmt(r[op].workerd.p50 / r[op].sqlite.p50)}×`,
      ]),
    );
    const beside = (rows as Row[]).flatMap((r) => {
      const { product, singleMatch } = r.searchBesideSingleMatch;
      return [
        [fmt(r.size, 0), "searchMemories", product.p50, product.p95, product.mean, `${fmt(product.p50 / singleMatch.p50, 2)}×`],
        [fmt(r.size, 0), "one MATCH (before per-mind weights)", singleMatch.p50, singleMatch.p95, singleMatch.mean, "1×"],
      ];
    });
    const markdown = [
      `One mind with N memories (LoCoMo turns cycled), ${QUERIES} timed calls each after 10 warm-up calls: \`searchMemories\` (a LoCoMo question, limit 20, as \`GET /memory/search\`) and \`recallMemories\` (limit 100, as \`GET /memory/recall\`) inside workerd on local D1. rows_read is D1's result meta for the same statements, summed over the statements of a call. Raw SQLite: the very statements edgemind sent (captured SQL and values) run by better-sqlite3 on the same rows, each call's statements timed together, the physical limit. workerd's clock moves only on I/O, so its times are whole milliseconds. The last row of each size drops the recall index of migration 0006 and measures recall again (50 calls).`,
      "",
      table(["memories", "call", "p50 ms", "p95 ms", "mean ms", "rows_read", "SQLite p50 ms", "SQLite p95 ms", "p50 ratio"], body),
      "",
      `The same ${QUERIES} questions once more, \`searchMemories\` and the statement it replaced taking turns call by call (so passing load weighs on both alike): one MATCH of the OR of the mind's terms with bm25 over the index's counts, joined to the memories with priority and recency (bench/jobs/single-match-search.ts), the search before each term was weighed by the mind's own idf.`,
      "",
      table(["memories", "call", "p50 ms", "p95 ms", "mean ms", "p50 vs one MATCH"], beside),
      "",
      `Recall's plan on D1 with the index: \`${(rows as { recallPlan?: string }[])[0]?.recallPlan ?? "–"}\` (no sort step). Local D1 still reports rows_read = 2×N for recall with and without the index, although the time falls with it: read that column as what local D1 counts, not as the rows the index walk touches.`,
      "",
      (rows as Row[]).map((r) => `Loading ${fmt(r.size, 0)} memories in ranges of 10,000 generated inside SQLite: ${fmt(r.insertMs / 1000)} s.`).join(" "),
      ...(failures.length > 0 ? ["", `Sizes that did not run: ${failures.join("; ")}`] : []),
    ].join("\n");
    return { json: { rows, failures }, markdown };
  },
};

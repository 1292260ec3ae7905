import { loadLocomo } from "../lib/locomo";
import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import type { TenantsInput, TenantsResult } from "../lib/tenants-data";
import { runJob } from "../lib/workerd";

const MINDS = (process.env.BENCH_TENANTS ?? "1,10,100,1000").split(",").map(Number);
const MEMORIES_PER_MIND = 2000;
const QUERIES = 200;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export const tenants: Part = {
  name: "tenants",
  title: "One mind's search as the database fills with other minds",
  async run(log) {
    const locomo = loadLocomo();
    const input: TenantsInput = {
      minds: MINDS,
      memoriesPerMind: MEMORIES_PER_MIND,
      texts: locomo.conversations.flatMap((c) => c.turns.map((t) => `${t.speaker}: ${t.text}`)),
      questions: locomo.conversations.flatMap((c) => c.questions.map((q) => q.text)),
      queries: QUERIES,
    };
    const job = await runJob<TenantsResult>("tenants", input, log);
    const first = job.stages[0]!;
    const p50 = (ms: number[]) => percentile(ms, 50);
    const rows = job.stages.map((s) => [
      fmt(s.minds, 0),
      fmt(s.memories, 0),
      p50(s.ms),
      percentile(s.ms, 95),
      mean(s.ms),
      `${fmt(p50(s.ms) / p50(first.ms), 2)}×`,
      fmt(mean(s.rowsRead), 0),
      fmt(Math.max(...s.rowsRead), 0),
    ]);
    const markdown = [
      `One measured mind holds ${fmt(MEMORIES_PER_MIND, 0)} memories (LoCoMo turns); the database around it fills with other minds of ${fmt(MEMORIES_PER_MIND, 0)} memories each, every one its own run of the same turns (so they share the vocabulary). At each size the measured mind answers ${QUERIES} LoCoMo questions through \`searchMemories\` (src/memory/search.ts, as \`GET /memory/search\`, limit 20) inside workerd on local D1, after 10 warm-up calls; rows_read is D1's result meta summed over every statement of a call, for 50 of those calls, each statement sent again alone. workerd's clock moves only on I/O, so times are whole milliseconds.`,
      "",
      table(["minds in the database", "memories in the database", "search p50 ms", "p95 ms", "mean ms", "p50 vs 1 mind", "rows_read mean", "rows_read max"], rows),
      "",
      `Loading: the product's normalisation (\`stems\`) runs once per base text in the Worker; each mind's ${fmt(MEMORIES_PER_MIND, 0)} memories are then one INSERT … SELECT inside SQLite through the real FTS triggers, the mind's search token put in front of every stem in SQL; ${fmt(job.checkedRows, 0)} generated rows were checked equal to what \`storeMemory\` writes (\`memorySearchColumns\`). Minds are created by \`createMind\`. Load time per step: ${job.stages.map((s) => `${fmt(s.minds, 0)} minds ${fmt(s.loadMs / 1000)} s`).join(", ")}.`,
    ].join("\n");
    log(`tenants: ${job.stages.map((s) => `${s.minds} minds p50 ${p50(s.ms)} ms`).join("; ")}`);
    return { json: { ...job, stages: job.stages.map(({ ms, rowsRead, ...s }) => ({ ...s, p50: p50(ms), p95: percentile(ms, 95), mean: mean(ms), rowsReadMean: mean(rowsRead), rowsReadMax: Math.max(...rowsRead) })) }, markdown };
  },
};

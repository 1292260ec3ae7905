import { readFileSync } from "node:fs";
import path from "node:path";
import type { BacklogRow } from "../lib/backlog-data";
import type { Part } from "../lib/part";
import { startSlowModel } from "../lib/slow-model";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

const SIZES = (process.env.BENCH_BACKLOG ?? "100,1000,5000").split(",").map(Number);
const MODEL_MS = 200;
// The shared limiter's setting for the run: high enough that the consumer, not the limiter, sets the pace.
const REQUESTS_PER_MINUTE = Number(process.env.BENCH_BACKLOG_RPM ?? 60_000);
/** wrangler.toml's work-queue consumer: messages an invocation works on at once, and invocations at once when deployed. */
function consumerSettings(): { batch: number; concurrency: number } {
  const toml = readFileSync(path.join(import.meta.dirname, "../../wrangler.toml"), "utf8");
  const block = /\[\[queues\.consumers\]\]\s*queue = "edgemind-jobs"[^[]*/.exec(toml)?.[0] ?? "";
  const read = (key: string) => Number(new RegExp(`${key} = (\\d+)`).exec(block)?.[1] ?? NaN);
  return { batch: read("max_batch_size"), concurrency: read("max_concurrency") };
}
const CONSUMER = consumerSettings();
const CONCURRENCY = CONSUMER.batch * CONSUMER.concurrency;

const seconds = (ms: number | null) => (ms === null ? "—" : fmt(ms / 1000, 1));

export const backlog: Part = {
  name: "backlog",
  title: "Consolidation backlog: one hourly run until every namespace is consolidated, queue against the serial job",
  async run(log) {
    const model = await startSlowModel(MODEL_MS);
    try {
      const bindings = {
        LLM_PROVIDER: "openai-compatible",
        LLM_BASE_URL: model.url,
        LLM_MODEL: "stand-in",
        LLM_REQUESTS_PER_MINUTE: String(REQUESTS_PER_MINUTE),
        LLM_TOKENS_PER_MINUTE: "0",
      };
      const job = await runJob<{ rows: BacklogRow[] }>("backlog", { sizes: SIZES, model: model.url, drainTimeoutMs: 30 * 60_000, bindings }, log);
      const rows = job.rows.map((r) => {
        // Local Queues deliver one batch at a time (max_concurrency is a deployment's setting), so the
        // concurrency the drain is held to is what was measured: the most model calls in flight.
        const ideal = (r.namespaces * MODEL_MS) / Math.max(1, r.maxInFlight);
        return [
          fmt(r.namespaces, 0),
          r.path === "queue" ? "after: queue" : "before: serial job",
          `${fmt(r.consolidated, 0)} of ${fmt(r.namespaces, 0)}`,
          r.path === "queue" ? seconds(r.drainMs) : `${seconds(r.producerMs)} (${fmt(Math.ceil(r.namespaces / 25), 0)} hourly runs for all)`,
          r.path === "queue" && r.drainMs !== null ? `${fmt(r.drainMs / ideal, 2)}×` : "—",
          fmt(r.maxInFlight, 0),
          fmt(r.modelCalls, 0),
          seconds(r.producerMs),
          fmt(r.producerStatements, 0),
          r.pages === null ? "—" : fmt(r.pages, 0),
        ];
      });
      const markdown = [
        `Namespaces with one waiting note each, spread over both databases (DB and SHARD_1) by the product's placement; the model is a stand-in OpenAI-compatible server (scripts/model-stand-in-answers.mjs) answering every call after a fixed ${MODEL_MS} ms. ` +
          `"after": one hourly cron run as \`scheduled()\` runs it (\`runCronWith\`, the producers), then the Worker's own \`queue()\` consumer (local Queues in workerd with wrangler.toml's settings; deployed, ${CONSUMER.concurrency} invocations × ${CONSUMER.batch} messages = ${CONCURRENCY} units at once at most) until no note waits; the shared model limiter at ${fmt(REQUESTS_PER_MINUTE, 0)} requests a minute. ` +
          `"before": one run of the serial hourly job as it was (bench/jobs/serial-consolidation.ts: 25 namespaces a run, one after another) over the same namespaces. ` +
          `Drain vs ideal: drain time ÷ (namespaces × ${MODEL_MS} ms ÷ the most model calls in flight); locally Miniflare hands the consumer one batch at a time, so that is max_batch_size, where a deployment runs max_concurrency batches at once. Producer statements: every D1 statement of the hourly run (both jobs' records, the claim sweep and the pages); for the serial job, its whole run.`,
        "",
        table(["namespaces", "path", "consolidated", "until all consolidated, s", "drain vs ideal", "model calls in flight, max", "model calls", "cron run wall time, s", "cron run D1 statements", "pages"], rows),
      ].join("\n");
      return { json: { modelMs: MODEL_MS, requestsPerMinute: REQUESTS_PER_MINUTE, concurrency: CONCURRENCY, rows: job.rows }, markdown };
    } finally {
      await model.stop();
    }
  },
};

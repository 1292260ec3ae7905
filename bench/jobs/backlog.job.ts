import { env } from "cloudflare:workers";
import { it } from "vitest";
import { everyShard } from "../../src/db/client";
import { createDeps } from "../../src/deps";
import { SCHEDULE } from "../../src/jobs";
import { createLanguageModel, readLlmConfig } from "../../src/llm/providers";
import { addNote } from "../../src/notes/notes";
import { runJob } from "../../src/queue/job-runs";
import { runCronWith } from "../../src/queue/schedule";
import { bindMind, personalScope } from "../../src/tenancy/mind-context";
import { createMind, ensureAccount, type Mind } from "../../src/tenancy/minds";
import { recordingD1 } from "../../test/support/recording-d1";
import type { BacklogInput, BacklogRow } from "../lib/backlog-data";
import { benchDeps } from "./bench-deps";
import { progress, report } from "./report";
import { runSerialConsolidation } from "./serial-consolidation";

const input = (env as unknown as { BENCH_INPUT: BacklogInput }).BENCH_INPUT;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Notes waiting on every database. */
async function waitingNotes(): Promise<number> {
  let n = 0;
  for (const shard of everyShard(benchDeps())) n += (await shard.db.$client.prepare("select count(*) as n from notes").first<{ n: number }>())!.n;
  return n;
}

async function modelStats(): Promise<{ calls: number; maxInFlight: number }> {
  return (await fetch(`${input.model}/stats`)).json<{ calls: number; maxInFlight: number }>();
}

/** Every shard seen through a recording handle: the statements a run sends, counted. */
function recordingEnv(log: string[]): Env {
  const wrapped: Record<string, unknown> = { ...env };
  for (const name of everyShard(benchDeps()).map((s) => s.name)) wrapped[name] = recordingD1((env as unknown as Record<string, D1Database>)[name]!, log);
  return wrapped as unknown as Env;
}

it("backlog: one hourly run until every namespace is consolidated, through the queue and the serial job", async () => {
  const deps = benchDeps();
  const account = await ensureAccount(deps, "bench-backlog");
  const minds: Mind[] = [];
  const rows: BacklogRow[] = [];
  const addNotes = async (tag: string) => {
    for (const mind of minds) {
      const mindContext = bindMind(deps, mind, personalScope({ kind: "human", accountId: account.id }, mind.id));
      await addNote(mindContext, { text: `${tag}: a fact about ${mind.name}`, category_hint: "profile" });
    }
  };
  for (const size of input.sizes) {
    const t0 = Date.now();
    while (minds.length < size) minds.push(await createMind(deps, account.id, { name: `backlog ${minds.length}` }));
    await addNotes(`queue ${size}`);
    progress(`${size}: ${minds.length} minds, ${await waitingNotes()} notes waiting (${((Date.now() - t0) / 1000).toFixed(0)} s to prepare)`);

    // After: one hourly run as scheduled() runs it; the Worker's queue() consumer does the work.
    await fetch(`${input.model}/reset`, { method: "POST" });
    const log: string[] = [];
    const start = Date.now();
    const runs = await runCronWith(createDeps(recordingEnv(log)), SCHEDULE, "0 * * * *");
    const producerMs = Date.now() - start;
    const producerStatements = log.length;
    let drainMs: number | null = null;
    let left = await waitingNotes();
    while (left > 0 && Date.now() - start < input.drainTimeoutMs) {
      await sleep(100);
      left = await waitingNotes();
    }
    if (left === 0) drainMs = Date.now() - start;
    const after = await modelStats();
    const pages = runs.reduce((n, r) => n + Number(r.counts.pages ?? 0), 0);
    rows.push({ namespaces: size, path: "queue", producerMs, producerStatements, pages, consolidated: size - left, drainMs, modelCalls: after.calls, maxInFlight: after.maxInFlight });
    progress(`${size} queue: producer ${producerMs} ms, ${producerStatements} statements, drained in ${drainMs ?? "—"} ms, ${after.calls} model calls, ${after.maxInFlight} in flight at most`);

    // Before: one run of the serial job over the same namespaces, each with a note waiting again.
    await addNotes(`serial ${size}`);
    await fetch(`${input.model}/reset`, { method: "POST" });
    const serialLog: string[] = [];
    const recorded = createDeps(recordingEnv(serialLog));
    const llm = createLanguageModel(readLlmConfig(env));
    const waitingBefore = await waitingNotes();
    const serialStart = Date.now();
    await runJob(recorded, "consolidation", "0 * * * *", (counts) => runSerialConsolidation({ ...recorded, model: () => llm }, counts));
    const serialMs = Date.now() - serialStart;
    const serial = await modelStats();
    const consolidated = waitingBefore - (await waitingNotes());
    rows.push({ namespaces: size, path: "serial", producerMs: serialMs, producerStatements: serialLog.length, pages: null, consolidated, drainMs: consolidated >= size ? serialMs : null, modelCalls: serial.calls, maxInFlight: serial.maxInFlight });
    progress(`${size} serial: one run ${serialMs} ms, ${serialLog.length} statements, ${consolidated} of ${size} consolidated`);
  }
  report({ rows });
});

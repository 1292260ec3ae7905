import { randomBytes } from "node:crypto";
import { percentile } from "../lib/metrics";
import { table } from "../lib/table";
import { type DevServer, isRestarted, startWranglerDev } from "../lib/wrangler-dev";

// Refusals through `wrangler dev`, where a Worker that holds its isolate too long or leaves a
// request body unread shows up as wrangler's own plain-text 503 "Your worker restarted
// mid-request": a chunked import over the bound followed by ordinary requests, and writes to a
// mind of MOVE_ROWS memories while it moves between shards, with /health probed meanwhile.
const MOVE_ROWS = Number(process.env.BOUNDS_MOVE_ROWS ?? 30_000);
const AFTER_REFUSAL = 5;
/** The import's bound (IMPORT_MAX_BYTES of src/portability/archive.ts, which only workerd code may import). */
const IMPORT_MAX_BYTES = 32 * 1024 * 1024;

interface Answer {
  what: string;
  status: number;
  ms: number;
  restarted: boolean;
}

export interface DevRefusals {
  answers: Answer[];
  healthMs: number[];
  moveSeconds: number;
  restarted: number;
}

const WORDS = "the quick brown fox jumps over a lazy dog while the river keeps running south past old mills".split(" ");

async function timed(what: string, send: () => Promise<Response>): Promise<Answer> {
  const t0 = performance.now();
  const res = await send();
  const text = await res.text();
  return { what, status: res.status, ms: performance.now() - t0, restarted: isRestarted(res.status, text) };
}

/** A body of `bytes` spaces sent in 1 MB chunks, with no length declared. */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

function archive(rows: number): string {
  const at = "2026-01-01T00:00:00.000Z";
  const lines = [JSON.stringify({ type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "moving", locale: "en", retention_hours: null, settings: {} } })];
  for (let i = 0; i < rows; i++) {
    const content = Array.from({ length: 30 }, (_, w) => WORDS[(w * 7 + i) % WORDS.length]).join(" ");
    lines.push(JSON.stringify({ type: "memory", id: `mem_${i}`, agent: "default", category: "fact", key: `fact_${i}`, content, tags: ["bulk"], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at }));
  }
  return lines.join("\n") + "\n";
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs both scenarios on a fresh `wrangler dev`. */
export async function refusalsThroughWranglerDev(log: (line: string) => void): Promise<DevRefusals> {
  const admin = randomBytes(18).toString("base64url");
  const server: DevServer = await startWranglerDev({ ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url") }, log);
  try {
    const json = async (path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
      (await (await fetch(`${server.url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
    const { token } = (await json("/auth/token", admin, { account: "bounds" })) as { token: string };
    const newMind = async (name: string) => (await json("/minds", token, { name })).id as string;
    const answers: Answer[] = [];
    const nextRequests = async (after: string) => {
      for (let i = 0; i < AFTER_REFUSAL; i++) answers.push(await timed(`POST /minds after ${after}`, () => fetch(`${server.url}/minds`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: `after-${i}` }) })));
    };

    const refusedMind = await newMind("refused");
    const over = IMPORT_MAX_BYTES + 2 * 1024 * 1024;
    answers.push(await timed(`chunked import of ${(over / 1024 / 1024).toFixed(0)} MB`, () =>
      fetch(`${server.url}/minds/${refusedMind}/import`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" }, body: chunked(over), duplex: "half" } as RequestInit)));
    await nextRequests("the refused import");
    answers.push(await timed("chunked POST /memory of 200 KB", () =>
      fetch(`${server.url}/memory`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "X-Mind-Id": refusedMind, "Content-Type": "application/json" }, body: chunked(200 * 1024), duplex: "half" } as RequestInit)));
    await nextRequests("the refused memory");
    log(`  [bounds] refusals through wrangler dev: ${answers.map((a) => a.status).join(" ")}`);

    const moving = await newMind("moving");
    const started = await fetch(`${server.url}/minds/${moving}/import`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" }, body: archive(MOVE_ROWS) });
    const job = ((await started.json()) as { job: { id: string } }).job.id;
    for (;;) {
      await sleep(1000);
      const state = ((await (await fetch(`${server.url}/minds/${moving}/import/${job}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { state: string }).state;
      if (state === "done") break;
      if (state === "failed") throw new Error("the import of the mind to move failed");
    }
    log(`  [bounds] ${MOVE_ROWS} memories imported; moving`);
    let move: Response | null = null;
    for (const shard of ["SHARD_1", "DB"]) {
      move = await fetch(`${server.url}/shards/${shard}/minds`, { method: "POST", headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" }, body: JSON.stringify({ mind_id: moving }) });
      if (move.status === 202) break;
    }
    if (move?.status !== 202) throw new Error(`the move did not start: ${move?.status}`);
    const t0 = performance.now();
    const healthMs: number[] = [];
    let moved = false;
    const probe = (async () => {
      while (!moved) {
        const answer = await timed("GET /health during the move", () => fetch(`${server.url}/health`));
        healthMs.push(answer.ms);
        if (answer.restarted) answers.push(answer);
        await sleep(100);
      }
    })();
    for (let i = 0; !moved; i++) {
      answers.push(await timed("POST /memory during the move", () =>
        fetch(`${server.url}/memory`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "X-Mind-Id": moving, "Content-Type": "application/json" }, body: JSON.stringify({ category: "fact", key: `during_${i}`, content: "written while moving" }) })));
      await sleep(250);
      const state = ((await (await fetch(`${server.url}/shards/moves/${moving}`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as { state: string }).state;
      moved = state === "done" || state === "abandoned";
    }
    await probe;
    const moveSeconds = (performance.now() - t0) / 1000;
    return { answers, healthMs, moveSeconds, restarted: answers.filter((a) => a.restarted).length };
  } finally {
    await server.stop();
  }
}

/** The scenarios as a markdown table, one row per kind of request. */
export function describeRefusals(r: DevRefusals): string {
  const kinds = [...new Set(r.answers.map((a) => a.what))];
  const rows = kinds.map((what) => {
    const of = r.answers.filter((a) => a.what === what);
    const statuses = [...new Set(of.map((a) => a.status))].map((s) => `${s}×${of.filter((a) => a.status === s).length}`).join(", ");
    return [what, of.length, statuses, of.filter((a) => a.restarted).length, percentile(of.map((a) => a.ms), 50), percentile(of.map((a) => a.ms), 100)];
  });
  rows.push(["GET /health during the move", r.healthMs.length, "", 0, percentile(r.healthMs, 50), percentile(r.healthMs, 100)]);
  return [
    `### Refusals through \`wrangler dev\``,
    "",
    `A chunked import past the bound and a chunked body past an ordinary route's bound, each followed by ${AFTER_REFUSAL} requests; then writes (every 250 ms) to a mind of ${MOVE_ROWS.toLocaleString("en-US")} memories while it moves between shards (${r.moveSeconds.toFixed(1)} s), with \`/health\` probed every 100 ms. "restarted" counts wrangler's plain-text 503 "Your worker restarted mid-request": the run fails on any.`,
    "",
    table(["request", "answers", "statuses", "restarted", "p50 ms", "max ms"], rows),
  ].join("\n");
}

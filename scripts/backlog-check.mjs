// A black-box check of background work: `wrangler dev --test-scheduled` on a fresh local
// database, MINDS minds (60) each with one waiting note written over HTTP, one hourly cron run
// fired through /__scheduled, then the time until every mind's cold memory holds its note.
// Fails if that takes longer than LIMIT_S (240). PORT (8787) is where wrangler dev listens.
// Without a model the notes are merged offline; with MODEL_URL (an OpenAI-compatible server such
// as `npm run model:local`) every namespace is merged by it.
//   node scripts/backlog-check.mjs
//   MODEL_URL=http://127.0.0.1:8789/v1 node scripts/backlog-check.mjs   (npm run model:local with PORT unset)
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const ROOT = path.join(import.meta.dirname, "..");
const WRANGLER = path.join(ROOT, "node_modules/.bin/wrangler");
const PORT = Number(process.env.PORT ?? 8787);
const MINDS = Number(process.env.MINDS ?? 60);
const LIMIT_S = Number(process.env.LIMIT_S ?? 240);
const ADMIN = "check-admin-token-0123456789";
const BASE = `http://127.0.0.1:${PORT}`;

const state = mkdtempSync(path.join(tmpdir(), "edgemind-check-"));
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", XDG_CONFIG_HOME: path.join(state, "config") };
for (const db of ["DB", "SHARD_1"]) {
  const run = spawnSync(WRANGLER, ["d1", "migrations", "apply", db, "--local", "--persist-to", state], { cwd: ROOT, env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr || run.stdout);
}
const model = process.env.MODEL_URL ? { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: process.env.MODEL_URL, LLM_MODEL: "stand-in" } : { LLM_PROVIDER: "none" };
const vars = { ADMIN_TOKEN: ADMIN, JWT_SECRET: "check-jwt-secret-0123456789abcdef", ...model, RATE_LIMIT_REQUESTS: "off" };
const args = ["dev", "--ip", "127.0.0.1", "--port", String(PORT), "--persist-to", state, "--test-scheduled", "--show-interactive-dev-session=false"];
for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
const dev = spawn(WRANGLER, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
let batches = 0;
dev.stdout.on("data", (d) => (batches += (d.toString().match(/QUEUE edgemind-jobs /g) ?? []).length));
dev.stderr.on("data", () => {});

const api = async (method, url, token, body, mind) => {
  const res = await fetch(`${BASE}${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(mind && { "X-Mind-Id": mind }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};

try {
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      if ((await fetch(`${BASE}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("wrangler dev did not start");
    await new Promise((r) => setTimeout(r, 250));
  }
  const { token } = await api("POST", "/auth/token", ADMIN, { account: "check" });
  const minds = [];
  for (let i = 0; i < MINDS; i++) {
    const mind = await api("POST", "/minds", token, { name: `check ${i}` });
    await api("POST", "/notes", token, { text: `Fact number ${i} about mind ${i}`, category_hint: "profile" }, mind.id);
    minds.push(mind.id);
  }
  console.log(`${MINDS} minds, one waiting note each; firing one hourly cron run`);
  const start = Date.now();
  const fired = await fetch(`${BASE}/__scheduled?cron=0+*+*+*+*`);
  if (!fired.ok) throw new Error(`/__scheduled: ${fired.status}`);
  let done = 0;
  while (Date.now() - start < LIMIT_S * 1000) {
    const versions = await Promise.all(minds.map((m) => api("GET", "/cold?agent=default", token, undefined, m).then((c) => c.version)));
    done = versions.filter((v) => v >= 1).length;
    if (done === MINDS) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (Date.now() - start) / 1000;
  const jobs = await api("GET", "/jobs?limit=2", ADMIN);
  console.log(`${done} of ${MINDS} consolidated ${seconds.toFixed(1)} s after the cron run (${batches} queue batches); the run: ${JSON.stringify(jobs.runs.find((r) => r.job === "consolidation")?.counts)}; queue now ${JSON.stringify(jobs.queue)}`);
  process.exitCode = done === MINDS ? 0 : 1;
} finally {
  dev.kill("SIGTERM");
}

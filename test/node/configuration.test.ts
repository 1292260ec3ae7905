// The one list of configuration checks as `npm run dev`, the deploy check and a live Worker's
// /health use it, and a missing setting reaching a caller as 503 naming it from inside a Durable
// Object: a local Worker run with LLM_PROVIDER=openai-compatible and no LLM_BASE_URL.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { deployProblems, localProblems } from "../../scripts/configuration.mjs";
import { type LocalWorker, root, startLocalWorker } from "../../scripts/local.mjs";

const admin = randomBytes(24).toString("base64url");
const secrets = { ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url") };
let worker: LocalWorker | undefined;
let scratch = "";
let base = "";

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  scratch = mkdtempSync(path.join(root, ".tmp", "configuration-"));
  const vars = { ...secrets, LLM_PROVIDER: "openai-compatible", LLM_MODEL: "any", EMBEDDINGS_PROVIDER: "none" };
  worker = await startLocalWorker({ persistTo: path.join(scratch, "state"), vars });
  base = worker.base;
});

after(() => {
  worker?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function api(method: string, route: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined && { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

test("with LLM_PROVIDER=openai-compatible and no LLM_BASE_URL, extraction answers 503 naming it from the session's object, and /health lists it", async () => {
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 503);
  assert.deepEqual(await health.json(), { ok: false, service: "edgemind", not_configured: ["LLM_BASE_URL"] });

  const { json: person } = await api("POST", "/auth/token", admin, { account: "configuration" });
  const { json: mind } = await api("POST", "/minds", person.token, { name: "configuration" });
  const { json: key } = await api("POST", `/minds/${mind.id}/keys`, person.token, { name: "agent" });
  const { json: session } = await api("POST", "/sessions", key.key, { task_name: "extract" });
  assert.equal((await api("POST", `/sessions/${session.id}/messages`, key.key, { role: "user", content: "I drink green tea" })).status, 201);
  const extracted = await api("POST", `/sessions/${session.id}/extract`, key.key);
  assert.equal(extracted.status, 503, JSON.stringify(extracted.json));
  assert.equal(extracted.json.error.code, "not_configured");
  assert.match(extracted.json.error.message, /LLM_BASE_URL/);
});

test("npm run dev's start lists every problem of wrangler.toml with the vars file at once, each named", () => {
  const problems = localProblems({ LLM_PROVIDER: "openai-compatible", TELEGRAM_BOT_TOKEN: "123:abc", RATE_LIMIT_WINDOW_SECONDS: "soon" });
  assert.deepEqual(
    problems.map((p) => p.setting),
    ["JWT_SECRET", "ADMIN_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_BOT_USERNAME", "LLM_BASE_URL", "LLM_MODEL", "RATE_LIMIT_WINDOW_SECONDS"],
  );
  assert.deepEqual(localProblems({ ...secrets }), []);
});

test("the deploy check passes this wrangler.toml and names a var or binding that is wrong, leaving the secrets it cannot see", () => {
  assert.deepEqual(deployProblems(), []);
  const config = path.join(scratch, "wrangler.toml");
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8").replace("[vars]\n", '[vars]\nLLM_PROVIDER = "workers-ai"\nEMBEDDINGS_PROVIDER = "openai-compatible"\n');
  writeFileSync(config, toml.replace(/\[\[queues\.producers\]\][^[]*/, ""));
  assert.deepEqual(
    deployProblems(config).map((p) => p.setting),
    ["JOBS", "AI", "EMBEDDINGS_BASE_URL", "EMBEDDINGS_MODEL"],
  );
});

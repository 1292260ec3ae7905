import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { applyMigrations, freePort, root, startWorker } from "../../scripts/local.mjs";
import { FAILING_CURL, runBash, shellBlocks } from "./readme-blocks";

/** The README sections whose shell examples are run, in order, against a live local Worker. */
const SECTIONS = ["## Using the API", "## Sessions: clean context per task", "## Long-term memory: notes, cold memory, consolidation"];

const readme = readFileSync(path.join(root, "README.md"), "utf8");
const admin = randomBytes(24).toString("base64url");
let worker: ChildProcess | undefined;
let state = "";
let port = 0;

async function waitForHealth(base: string, dev: ChildProcess): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (dev.exitCode !== null) throw new Error(`wrangler dev exited with ${dev.exitCode}`);
    const up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not answer /health within 60 s");
}

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  state = mkdtempSync(path.join(root, ".tmp", "readme-state-"));
  assert.ok(await applyMigrations({ persistTo: state }), "the migrations apply to a fresh local D1");
  port = await freePort();
  // The Node tests run side by side: this Worker's devtools port is its own, not wrangler's first free one.
  process.env.INSPECTOR_PORT = String(await freePort());
  const vars = { ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url"), LLM_PROVIDER: "none", EMBEDDINGS_PROVIDER: "none" };
  const args = ["--local", "--persist-to", state, "--show-interactive-dev-session=false"];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const dev = startWorker(port, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  worker = dev;
  let output = "";
  dev.stdout?.on("data", (d) => (output += d));
  dev.stderr?.on("data", (d) => (output += d));
  await waitForHealth(`http://127.0.0.1:${port}`, dev).catch((err: Error) => {
    throw new Error(`${err.message}\n${output.slice(-4000)}`);
  });
});

after(() => {
  if (worker?.pid) {
    try {
      process.kill(-worker.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  if (state) rmSync(state, { recursive: true, force: true });
});

test("the README's API, sessions and cold memory examples run as written against a local Worker", async () => {
  const blocks = SECTIONS.map((heading) => ({ heading, blocks: shellBlocks(readme, heading) }));
  for (const { heading, blocks: found } of blocks) assert.ok(found.length > 0, `README has shell examples under "${heading}"`);
  // The reader's own directory: .dev.vars holds the admin token the first block reads.
  const cwd = mkdtempSync(path.join(root, ".tmp", "readme-reader-"));
  writeFileSync(path.join(cwd, ".dev.vars"), `ADMIN_TOKEN=${admin}\n`);
  // Every curl fails on an HTTP error status, and so does the block it is in (pipefail).
  const script = [
    ...FAILING_CURL,
    ...blocks.flatMap(({ heading, blocks: found }) => found.map((block, i) => `echo ">>> ${heading} #${i + 1}" >&2\n${block}`)),
  ].join("\n");
  try {
    const { code, stdout, stderr } = await runBash(script, cwd, { ...process.env, PORT: String(port) });
    assert.equal(code, 0, `a README example failed:\n${stderr.slice(-3000)}\n--- output ---\n${stdout.slice(-2000)}`);
    // A comment line that is a JSON object alone shows what the command before it prints.
    const shown = [...blocks.flatMap((b) => b.blocks).join("\n").matchAll(/^# (\{.*\})$/gm)].map((m) => m[1]!);
    assert.ok(shown.length > 0, "the README shows some output");
    for (const expected of shown) assert.ok(stdout.includes(expected), `the README shows ${expected}; the examples printed:\n${stdout.slice(-2000)}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

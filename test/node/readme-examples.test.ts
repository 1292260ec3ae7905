import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { type LocalWorker, root, startLocalWorker } from "../../scripts/local.mjs";
import { FAILING_CURL, runBash, shellBlocks } from "./readme-blocks";

/** The README sections whose shell examples are run, in order, against a live local Worker. */
const SECTIONS = ["## Using the API", "## Sessions: clean context per task", "## Long-term memory: notes, cold memory, consolidation"];

const readme = readFileSync(path.join(root, "README.md"), "utf8");
const admin = randomBytes(24).toString("base64url");
let worker: LocalWorker | undefined;
let state = "";

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  state = mkdtempSync(path.join(root, ".tmp", "readme-state-"));
  const vars = { ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url"), LLM_PROVIDER: "none", EMBEDDINGS_PROVIDER: "none" };
  worker = await startLocalWorker({ persistTo: state, vars });
});

after(() => {
  worker?.stop();
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
    const { code, stdout, stderr } = await runBash(script, cwd, { ...process.env, PORT: new URL(worker!.base).port });
    assert.equal(code, 0, `a README example failed:\n${stderr.slice(-3000)}\n--- output ---\n${stdout.slice(-2000)}`);
    // A comment line that is a JSON object alone shows what the command before it prints.
    const shown = [...blocks.flatMap((b) => b.blocks).join("\n").matchAll(/^# (\{.*\})$/gm)].map((m) => m[1]!);
    assert.ok(shown.length > 0, "the README shows some output");
    for (const expected of shown) assert.ok(stdout.includes(expected), `the README shows ${expected}; the examples printed:\n${stdout.slice(-2000)}`);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

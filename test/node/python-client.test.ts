// The Python client (clients/python) as a user gets it: installed with pip into a new venv with no
// package index, then its unittest suite run against a live `wrangler dev` on a fresh local D1 (a
// mind key and a person's token in the environment), and the five lines of its README run as written.
// Without python3 (3.9 or newer, with venv) the test is skipped loudly, except under CI=true where it fails.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { type LocalWorker, root, startLocalWorker } from "../../scripts/local.mjs";

const clientDir = path.join(root, "clients", "python");
const admin = randomBytes(24).toString("base64url");
let dev: LocalWorker | undefined;
let scratch = "";
let base = "";
let python = "";
let world = { key: "", token: "", mind: "" };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; resolves its exit code and what it printed (a missing program exits 127). */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? scratch, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (error) => resolve({ code: 127, stdout, stderr: String(error) }));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

async function api<T>(method: string, route: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${route}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body ?? {}) });
  assert.ok(res.ok, `${method} ${route}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as T;
}

/** Why this machine cannot make a Python 3.9+ venv, or null when it can (the venv is made in scratch). */
async function makeVenv(): Promise<string | null> {
  const version = await run("python3", ["-c", "import sys; print(sys.version_info >= (3, 9))"]);
  if (version.code !== 0) return "no python3 on PATH";
  if (version.stdout.trim() !== "True") return "python3 is older than 3.9";
  const venv = await run("python3", ["-m", "venv", path.join(scratch, "venv")]);
  if (venv.code !== 0) return `python3 -m venv failed (Debian: apt-get install python3-venv): ${venv.stderr.trim().slice(-300)}`;
  python = path.join(scratch, "venv", "bin", "python");
  return null;
}

async function startTheWorker(): Promise<void> {
  const vars = { ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url"), LLM_PROVIDER: "none", EMBEDDINGS_PROVIDER: "none" };
  dev = await startLocalWorker({ persistTo: path.join(scratch, "state"), vars });
  base = dev.base;
}

let skipped: string | null = null;

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  scratch = mkdtempSync(path.join(root, ".tmp", "python-client-"));
  skipped = await makeVenv();
  if (skipped) return;
  await startTheWorker();
  const { token } = await api<{ token: string }>("POST", "/auth/token", admin, { account: "python-client" });
  const mind = await api<{ id: string }>("POST", "/minds", token, { name: "python client" });
  const { key } = await api<{ key: string }>("POST", `/minds/${mind.id}/keys`, token, { name: "python tests" });
  world = { key, token, mind: mind.id };
});

after(() => {
  dev?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Skips loudly where no Python can be had, and fails there under CI=true. */
function needsPython(t: { skip: (message: string) => void }): boolean {
  if (!skipped) return true;
  const message = `the Python client's tests did not run: ${skipped}`;
  assert.ok(!/^(1|true)$/i.test(process.env.CI ?? ""), `CI is set: ${message}`);
  console.error(`${"!".repeat(78)}\npython-client: SKIPPED, ${message}\n${"!".repeat(78)}`);
  t.skip(message);
  return false;
}

test("pip installs the Python client into a new venv with no package index, and its tests pass against a live Worker", async (t) => {
  if (!needsPython(t)) return;
  // No index, no configuration: the build must need nothing that is not in the repository.
  const pipEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PIP_")));
  const installed = await run(python, ["-m", "pip", "install", "--no-index", "--disable-pip-version-check", clientDir], { env: { ...pipEnv, PIP_CONFIG_FILE: "/dev/null" } });
  assert.equal(installed.code, 0, `pip install failed:\n${installed.stdout.slice(-2000)}\n${installed.stderr.slice(-2000)}`);

  const tests = path.join(clientDir, "tests");
  const env = { ...process.env, EDGEMIND_URL: base, EDGEMIND_KEY: world.key, EDGEMIND_TOKEN: world.token, EDGEMIND_MIND: world.mind, EDGEMIND_EXPECT_INSTALLED: "1" };
  // Run from the scratch folder, so `import edgemind` finds the installed package, not the source.
  const ran = await run(python, ["-m", "unittest", "discover", "-v", "-s", tests, "-t", tests], { env });
  assert.equal(ran.code, 0, `python -m unittest failed:\n${ran.stderr.slice(-6000)}`);
  assert.match(ran.stderr, /^OK/m);
  for (const reason of ["no live Worker", "run from the source tree"]) assert.doesNotMatch(ran.stderr, new RegExp(`skipped '${reason}`), "every test ran");
  assert.match(ran.stderr, /test_a_real_429_is_raised_with_retry_after_then_waited_out_and_sent_again .* ok$/m);
});

test("the Python client's README starts with pip install, then five lines that run as written", async (t) => {
  if (!needsPython(t)) return;
  const readme = readFileSync(path.join(clientDir, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1], code: m[2]!.trimEnd() }));
  assert.deepEqual(blocks[0], { language: "sh", code: "pip install ./clients/python" });
  assert.equal(blocks[1]?.language, "python");
  const lines = blocks[1]!.code.split("\n");
  assert.equal(lines.length, 5, `five lines, not ${lines.length}`);

  const installed = await run(python, ["-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--quiet", clientDir], { env: { ...process.env, PIP_CONFIG_FILE: "/dev/null" } });
  assert.equal(installed.code, 0, installed.stderr);
  const script = path.join(scratch, "readme.py");
  writeFileSync(script, `${blocks[1]!.code}\n`);
  // The variables `npm run demo` prints, for a mind of its own as a newcomer's is.
  const mind = await api<{ id: string }>("POST", "/minds", world.token, { name: "readme" });
  const { key } = await api<{ key: string }>("POST", `/minds/${mind.id}/keys`, world.token, { name: "readme" });
  const ran = await run(python, [script], { env: { ...process.env, BASE: base, KEY: key } });
  assert.equal(ran.code, 0, ran.stderr);
  // The README shows what the lines print, in the block under them.
  assert.deepEqual({ language: blocks[2]?.language, code: ran.stdout.trimEnd() }, { language: "", code: blocks[2]?.code });
});

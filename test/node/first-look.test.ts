// The README's first screen as a newcomer runs it: `npm run demo`, then its three commands pasted
// with the credentials the demo printed; the TypeScript client's complete script run against the
// same demo; and the demo's one world kept through the README's export and import walkthrough:
// `npm run demo -- login` still names the mind the bot writes to, and a /remember said to the bot
// is found with the key it prints.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { freePort, root } from "../../scripts/local.mjs";
import { FAILING_CURL, runBash, shellBlocks } from "./readme-blocks";

const readme = readFileSync(path.join(root, "README.md"), "utf8");
const EXPORT_LINE = /^\s*(export PORT=\S+ BASE=\S+ ADMIN='[^']+' TOKEN='[^']+' MIND=\S+ KEY='[^']+' SESSION=\S+)\s*$/m;
let demo: ChildProcess | undefined;
let printed = "";
let scratch = "";
let demoEnv: NodeJS.ProcessEnv = {};

/** Resolves once the demo has printed something matching `pattern` after `from` characters, or fails past `ms`. */
async function printedMatch(pattern: RegExp, from: number, ms: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = pattern.exec(printed.slice(from));
    if (found) return found;
    if (demo?.exitCode !== null) throw new Error(`the demo stopped (exit ${demo?.exitCode}):\n${printed.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`the demo did not print ${pattern} within ${ms / 1000} s:\n${printed.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The shell variables a command printed in its export line, as an environment. */
function exported(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/(\w+)=('([^']*)'|\S+)/g)].map((m) => [m[1]!, m[3] ?? m[2]!]));
}

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  scratch = mkdtempSync(path.join(root, ".tmp", "first-look-"));
  const [port, telegram, model, inspector] = [await freePort(), await freePort(), await freePort(), await freePort()];
  demoEnv = {
    ...process.env,
    PORT: String(port),
    STAND_IN_PORT: String(telegram),
    MODEL_STAND_IN_PORT: String(model),
    INSPECTOR_PORT: String(inspector),
    DEMO_DIR: path.join(scratch, "demo"),
    LANG: "en_US.UTF-8",
  };
  demo = spawn(process.execPath, ["--import", "tsx", "scripts/demo.mjs"], { cwd: root, env: demoEnv, stdio: ["pipe", "pipe", "pipe"], detached: true });
  demo.stdout?.on("data", (d) => (printed += d));
  demo.stderr?.on("data", (d) => (printed += d));
  await printedMatch(EXPORT_LINE, 0, 180_000);
});

after(() => {
  demo?.stdin?.end();
  if (demo?.pid) {
    try {
      process.kill(-demo.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("the TypeScript client's complete script stores a memory and an AI SDK agent finds it through the tools, printing what its README shows", async () => {
  const clientReadme = readFileSync(path.join(root, "packages", "client", "README.md"), "utf8");
  const section = clientReadme.split(/^## /m).find((part) => part.startsWith("A complete script\n"))!;
  const [script, shown] = [...section.matchAll(/^```(?:ts)?\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  // Beside the repository's node_modules, as an installed @edgemind/client (the workspace's, built by npm test).
  const file = path.join(scratch, "first-look.ts");
  writeFileSync(file, script!);
  const world = exported(EXPORT_LINE.exec(printed)![1]!);
  const env = { ...process.env, BASE: world.BASE, KEY: world.KEY, PORT: world.PORT, MODEL_URL: `http://127.0.0.1:${demoEnv.MODEL_STAND_IN_PORT}/v1` };
  const ran = await runBash(`${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(file)}`, scratch, env);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, shown);
});

test("the README's first screen: npm run demo, then three commands with the credentials it printed store, recall and assemble a context", async () => {
  const [start, ...rest] = shellBlocks(readme, "## First look");
  assert.equal(start, "npm ci && npm run demo");
  assert.equal(rest.length, 1, "one block of commands follows the demo");
  const commands = rest[0]!.split("\n").filter((line) => line.trim() && !line.trim().startsWith("#"));
  assert.equal(commands.length, 3, "three commands");
  const line = EXPORT_LINE.exec(printed)![1]!;
  const { code, stdout, stderr } = await runBash([...FAILING_CURL, line, rest[0]!].join("\n"), scratch, process.env);
  assert.equal(code, 0, `a command of the first screen failed:\n${stderr}\n--- output ---\n${stdout}`);
  const [stored, ...after] = stdout.split("\n");
  assert.match(stored!, /"key":"drink".*"source":"agent","verified":false/);
  const recall = after.join("\n");
  assert.match(recall, /\[unverified\][\s\S]*content: Drinks green tea, never coffee/);
  assert.match(recall, /<memory>[\s\S]*\[unverified\] Drinks green tea, never coffee[\s\S]*<\/memory>/);
});

test("after the README's export and import walkthrough, demo -- login names the bot's mind, whose key finds what the bot was told", async () => {
  const world = exported(EXPORT_LINE.exec(printed)![1]!);
  const [walkthrough] = shellBlocks(readme, "### Export, import, erase");
  assert.ok(walkthrough?.includes("/import"), "the README walks through an export and an import");
  const ran = await runBash([...FAILING_CURL, EXPORT_LINE.exec(printed)![1]!, walkthrough].join("\n"), scratch, process.env);
  assert.equal(ran.code, 0, `the walkthrough failed:\n${ran.stderr}\n--- output ---\n${ran.stdout}`);
  assert.match(ran.stdout, /"state": "done"/);

  const login = await runBash(`${process.execPath} --import tsx scripts/demo.mjs login`, root, demoEnv);
  assert.equal(login.code, 0, login.stderr);
  const named = exported(EXPORT_LINE.exec(login.stdout)?.[1] ?? "");
  assert.equal(named.MIND, world.MIND, "login names the mind the bot writes to, not the imported copy");
  assert.equal(named.KEY, world.KEY, "the key kept for it");

  const from = printed.length;
  demo!.stdin!.write("/remember I drink rooibos in the evening\n");
  await printedMatch(/Remembered \(\w+\): I drink rooibos in the evening/, from, 30_000);
  const found = await fetch(`${named.BASE}/memory/search?q=rooibos`, { headers: { Authorization: `Bearer ${named.KEY}` } });
  const { results } = (await found.json()) as { results: { content: string; source: string }[] };
  assert.deepEqual(results.map((r) => [r.content, r.source]), [["I drink rooibos in the evening", "user"]]);
});

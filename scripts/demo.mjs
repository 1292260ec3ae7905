// Everything at once, for a first look: the Worker, the Telegram stand-in, the model stand-in
// and a webhook receiver on ports that agree (PORT, PORT+1, PORT+2, PORT+3; PORT defaults to
// 8787). The mind's events go to the receiver, which prints each with its signature checked. The demo says
// /start to the bot as the local Telegram user, then prints that user's one world: a token for
// their account, a key to the mind of their bot chat, a one-time web UI login link into it, and
// the shell variables the README's examples use. Lines typed here go to the bot; a line
// "!tool <text>" posts <text> with the key as an agent's ephemeral tool output to the bot
// chat's task. Ctrl-C stops all of it. Nothing outside the machine is called.
// `npm run demo -- login` starts nothing: it prints a new login link, the key and the shell
// variables of the demo running on PORT, always for the mind the bot writes to.
// DEMO_DIR keeps the demo's settings, key and local databases in a directory of its own
// (default: .wrangler, the databases wrangler's own, as `npm run dev` uses them).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { DEMO_ACCOUNT, DEMO_TOOL, demoKey, demoLoginLink, demoMind, demoSession, postToolOutput, restClient } from "./demo-world.mjs";
import { applyMigrations, ensureDevVars, localPorts, newSecret, portIsFree, readVars, root, startWorker } from "./local.mjs";
import { startModelStandIn } from "./model-stand-in.mjs";
import { languageOf, startTelegramStandIn, telegramSettings } from "./telegram-stand-in.mjs";
import { startWebhookReceiver, subscribe } from "./webhook-receiver.mjs";

const ports = localPorts();
const base = `http://127.0.0.1:${ports.worker}`;
const demoDir = process.env.DEMO_DIR ? path.resolve(process.env.DEMO_DIR) : null;
const varsFile = path.join(demoDir ?? path.join(root, ".wrangler"), "demo.vars");
const keyFile = path.join(demoDir ?? path.join(root, ".wrangler"), "demo.key");
const persistTo = demoDir ? path.join(demoDir, "state") : undefined;
const api = restClient(base);
// How long a line waits for the bot's answer before the next line goes: the first /start
// also waits for the Worker's first load.
const REPLY_WAIT_MS = 30_000;
const FIRST_REPLY_WAIT_MS = 120_000;

if (process.argv[2] === "login") {
  await printLoginLink();
  process.exit(0);
}
if (process.argv[2] !== undefined) {
  console.error(`unknown argument "${process.argv[2]}": npm run demo starts the demo, npm run demo -- login prints a new web UI link into a running one`);
  process.exit(1);
}
for (const [what, port] of Object.entries(ports)) {
  if (!(await portIsFree(port))) {
    console.error(`127.0.0.1:${port} (the ${what === "worker" ? "Worker" : `${what} stand-in`}) is already in use: stop what holds it, or choose other ports with PORT=8800 npm run demo`);
    process.exit(1);
  }
}

// The secrets (and any other setting) of .dev.vars, made when missing; with DEMO_DIR the demo's own, kept there.
const local = demoDir ? ownSecrets() : (ensureDevVars(), readVars());
if (!(await applyMigrations({ persistTo }))) process.exit(1);

// The demo's settings: the secrets of .dev.vars, with the bot and the model pointed at the
// stand-ins. They go to a file of their own, so .dev.vars (and `npm run dev`) stay as they were.
const settings = {
  ...local,
  ...telegramSettings(ports.telegram),
  LLM_PROVIDER: "openai-compatible",
  LLM_BASE_URL: `http://127.0.0.1:${ports.model}`,
  LLM_MODEL: "stand-in",
  WEBHOOK_ALLOW_LOOPBACK: "1",
};
// Only a setting of .dev.vars can be at fault here: the routes that need it answer 503, the rest work.
const { localProblems, problemLines } = await import("./configuration.mjs");
const problems = localProblems(settings);
if (problems.length > 0) console.error(["configuration problems (wrangler.toml and .dev.vars):", ...problemLines(problems)].join("\n"));
mkdirSync(path.dirname(varsFile), { recursive: true });
writeFileSync(varsFile, Object.entries(settings).map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
chmodSync(varsFile, 0o600);

const quiet = (prefix) => (line) => console.log(`${prefix} ${line}`);
const model = await startModelStandIn({ port: ports.model, log: quiet("[model]") });
const webhookSecrets = [];
const receiver = await startWebhookReceiver({ port: ports.webhooks, secrets: () => webhookSecrets, log: console.log });
const telegram = await startTelegramStandIn({
  port: ports.telegram,
  worker: base,
  secret: settings.TELEGRAM_WEBHOOK_SECRET,
  language: languageOf(process.env.LANG),
});

// The Worker's own log, each line marked; the table of bindings, the access log and the
// structured info line of every request are left out (warnings and errors stay).
const worker = startWorker(ports.worker, ["--env-file", varsFile, ...(persistTo ? ["--persist-to", persistTo] : [])], { stdio: ["ignore", "pipe", "pipe"] });
const NOISE = [/^\{"level":"info"/, /^\[wrangler:info\] (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /, /^Your Worker has access/, /^Binding\s+Resource/, /^env\.\w+ /, /^\s*$/];
for (const stream of [worker.stdout, worker.stderr]) {
  createInterface({ input: stream }).on("line", (line) => {
    if (!NOISE.some((noise) => noise.test(line))) console.log(`[worker] ${line}`);
  });
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  model.close();
  receiver.close();
  telegram.server.close();
  if (worker.exitCode === null) worker.kill("SIGINT");
  worker.once("exit", () => process.exit(code));
  setTimeout(() => process.exit(code), 5000).unref();
  if (worker.exitCode !== null) process.exit(code);
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stop(0));
worker.on("exit", (code) => {
  if (!stopping) {
    console.error(`wrangler dev stopped (exit ${code})`);
    stop(code ?? 1);
  }
});

await runDemo();

/** Once the Worker is up: /start to the bot, the account's world, then the lines typed. */
async function runDemo() {
  if (!(await waitForHealth())) return fail(`the Worker did not answer ${base}/health within 3 minutes`);
  // The bot makes the local user's account and the mind of their chat at /start: everything
  // printed below is theirs, so what is said to the bot shows in the UI and through the key.
  const greeted = telegram.nextReply(FIRST_REPLY_WAIT_MS);
  telegram.say("/start");
  if ((await greeted) === null) return fail(`the bot did not answer /start within ${FIRST_REPLY_WAIT_MS / 1000} s`);
  const world = await openWorld().catch((error) => fail(`could not set up the demo account: ${error.message}`));
  if (!world) return;
  // The mind's events go to the receiver (a webhook of an earlier start is kept, with a new secret).
  const webhook = await subscribe(base, world.token, world.mind.id, `http://127.0.0.1:${ports.webhooks}/hooks`);
  webhookSecrets.splice(0, webhookSecrets.length, webhook.secret);
  printBanner(world);
  await readInput(world);
  // Piped input ran out: keep serving until Ctrl-C.
}

function fail(message) {
  console.error(message);
  stop(1);
  return null;
}

/** The demo account's token, the mind the bot writes to, that mind's key, the agent's task and a login link into the mind. */
async function openWorld(adminToken = settings.ADMIN_TOKEN) {
  const { token, mind, chat } = await demoMind(api, adminToken);
  const { key, kept } = await demoKey(api, token, mind.id, keyFile);
  const [session, link] = await Promise.all([demoSession(api, key), demoLoginLink(api, token, mind.id)]);
  return { adminToken, token, mind, chat, key, kept, session, link };
}

/** The shell variables of the README's examples, for the world's mind. */
function exportLine({ adminToken, token, mind, key, session }) {
  return `export PORT=${ports.worker} BASE=${base} ADMIN='${adminToken}' TOKEN='${token}' MIND=${mind.id} KEY='${key}' SESSION=${session}`;
}

function printBanner(world) {
  const { mind, key, kept, link } = world;
  const keyFileShown = path.relative(root, keyFile);
  const loginCommand = `${process.env.PORT ? `PORT=${ports.worker} ` : ""}npm run demo -- login`;
  console.log(`
edgemind is running, with everything it talks to standing in locally. Ctrl-C stops all of it.

  Worker             ${base}          API docs ${base}/docs
  Telegram stand-in  http://127.0.0.1:${ports.telegram}          the bot: type below
  Model stand-in     http://127.0.0.1:${ports.model}/v1       answers extraction, consolidation and chat
  Webhook receiver   http://127.0.0.1:${ports.webhooks}/hooks    prints the mind's events ([webhook] lines), signatures checked

One account, one mind: the bot's chat with you (the local Telegram user), the web UI link, the
mind key and the token below are all the account "${DEMO_ACCOUNT}" and its mind "${mind.name}".
What you tell the bot shows in the UI and through the key; what an agent writes with the key
reaches the bot.

Web UI (the link works once, until ${new Date(link.expiresAt).toLocaleTimeString()}; ${loginCommand} prints a new one):
  ${link.url}

The mind's key for agents (REST and MCP; ${kept ? "the same as the last start's" : "new"}, kept in ${keyFileShown} for the next start): ${key}

For the README's examples, paste this into another terminal:
  ${exportLine(world)}

Type a line for the bot: /remember I drink tea, /recall, /task list, /help, or any message
(a button is pressed by typing its data: press done:y:…).
Type !tool <text> to post <text> through the REST API with the key above, as an agent's
ephemeral tool output in the bot chat's task; then /done in the bot asks "Done?" with Yes / No.`);
}

/** Each line in turn: `!tool …` goes to the REST API, any other to the bot, which answers before the next goes. */
async function readInput({ key, chat }) {
  for await (const line of createInterface({ input: process.stdin })) {
    const text = line.trim();
    if (!text) continue;
    try {
      if (text === "!tool" || text.startsWith("!tool ")) await sendToolOutput(key, chat.id, text.slice(5).trim());
      else {
        const answered = telegram.nextReply(REPLY_WAIT_MS);
        telegram.say(text);
        await answered;
      }
    } catch (error) {
      console.log(`\n(demo) ${error.message}`);
    }
  }
}

async function sendToolOutput(key, chatId, output) {
  if (!output) return void console.log("\n(demo) write the tool's output after it: !tool 42 files uploaded");
  const sessionId = await postToolOutput(api, key, chatId, output);
  if (sessionId === null) {
    console.log("\n(demo) the bot's chat has no task yet: send the bot a message (it opens the default task), then !tool again");
    return;
  }
  console.log(`\n(demo) posted as ephemeral output of the tool "${DEMO_TOOL}" to the task ${sessionId}: type /done to be asked whether it is done`);
}

/** Prints a new login link into the mind the bot of the demo running on PORT writes to, its key and the shell variables, starting nothing. */
async function printLoginLink() {
  const adminToken = readVars(varsFile).ADMIN_TOKEN;
  // A demo holds the stand-in's port beside its Worker's; a bare `npm run dev` there has no bot chat to log into.
  const running = (await workerAnswers()) && !(await portIsFree(ports.telegram));
  if (!adminToken || !running) {
    console.error(`no demo runs on ${base}: start one with npm run demo, or name its port (PORT=8800 npm run demo -- login)`);
    process.exit(1);
  }
  try {
    const world = await openWorld(adminToken);
    const { mind, key, link } = world;
    console.log(`Web UI in the mind "${mind.name}", the one the bot writes to (the link works once, until ${new Date(link.expiresAt).toLocaleTimeString()}):
  ${link.url}

The mind's key for agents: ${key}

For the README's examples, paste this into another terminal:
  ${exportLine(world)}`);
  } catch (error) {
    console.error(`could not make a login link: ${error.message}`);
    process.exit(1);
  }
}

/** The secrets of a demo in DEMO_DIR: those its settings file kept, or new ones. */
function ownSecrets() {
  const kept = readVars(varsFile);
  return {
    ADMIN_TOKEN: kept.ADMIN_TOKEN ?? newSecret(),
    JWT_SECRET: kept.JWT_SECRET ?? newSecret(),
    WEBHOOK_ENCRYPTION_KEY: kept.WEBHOOK_ENCRYPTION_KEY ?? newSecret() + newSecret(),
  };
}

/** Whether a Worker answers /health: ok, or 503 naming settings at fault (the demo printed them at start). */
function workerAnswers() {
  return fetch(`${base}/health`).then((r) => r.ok || r.status === 503, () => false);
}

/** Whether the Worker answers /health within 3 minutes. */
async function waitForHealth() {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (stopping) return false;
    if (await workerAnswers()) return true;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return false;
}

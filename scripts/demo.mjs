// Everything at once, for a first look: the Worker, the Telegram stand-in and the model
// stand-in on ports that agree (PORT, PORT+1, PORT+2; PORT defaults to 8787), a demo account
// with a mind and a mind key, a one-time web UI login link, and the shell variables the
// README's examples use. Lines typed here go to the bot as the local Telegram user's messages.
// Ctrl-C stops all of it. Nothing outside the machine is called.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { applyMigrations, ensureDevVars, localPorts, portIsFree, readVars, root, startWorker } from "./local.mjs";
import { startModelStandIn } from "./model-stand-in.mjs";
import { languageOf, startTelegramStandIn, telegramSettings } from "./telegram-stand-in.mjs";

const ports = localPorts();
const base = `http://127.0.0.1:${ports.worker}`;
for (const [what, port] of Object.entries(ports)) {
  if (!(await portIsFree(port))) {
    console.error(`127.0.0.1:${port} (the ${what === "worker" ? "Worker" : `${what} stand-in`}) is already in use: stop what holds it, or choose other ports with PORT=8790 npm run demo`);
    process.exit(1);
  }
}

ensureDevVars();
if (!(await applyMigrations())) process.exit(1);

// The demo's settings: the secrets of .dev.vars, with the bot and the model pointed at the
// stand-ins. They go to a file of their own, so .dev.vars (and `npm run dev`) stay as they were.
const settings = {
  ...readVars(),
  ...telegramSettings(ports.telegram),
  LLM_PROVIDER: "openai-compatible",
  LLM_BASE_URL: `http://127.0.0.1:${ports.model}`,
  LLM_MODEL: "stand-in",
};
const varsFile = path.join(root, ".wrangler", "demo.vars");
mkdirSync(path.dirname(varsFile), { recursive: true });
writeFileSync(varsFile, Object.entries(settings).map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
chmodSync(varsFile, 0o600);

const quiet = (prefix) => (line) => console.log(`${prefix} ${line}`);
const model = await startModelStandIn({ port: ports.model, log: quiet("[model]") });
const telegram = await startTelegramStandIn({
  port: ports.telegram,
  worker: base,
  secret: settings.TELEGRAM_WEBHOOK_SECRET,
  language: languageOf(process.env.LANG),
});

// The Worker's own log, each line marked; the table of bindings and the access log of every
// request are left out.
const worker = startWorker(ports.worker, ["--env-file", varsFile], { stdio: ["ignore", "pipe", "pipe"] });
const NOISE = [/^\[wrangler:info\] (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /, /^Your Worker has access/, /^Binding\s+Resource/, /^env\.\w+ /, /^\s*$/];
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

await waitForHealth();

const api = async (method, route, token, body) => {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = response.status === 204 ? null : await response.json();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
};

const { token } = await api("POST", "/auth/token", settings.ADMIN_TOKEN, { account: "demo" });
const { minds } = await api("GET", "/minds", token);
const mind = minds.find((m) => m.name === "demo") ?? (await api("POST", "/minds", token, { name: "demo" }));
// A key's secret is shown only once, so each start makes a new "demo" key and revokes the one before.
const DEMO_KEY = "demo";
const { keys } = await api("GET", `/minds/${mind.id}/keys`, token);
for (const old of keys.filter((k) => k.name === DEMO_KEY && k.revoked_at === null)) {
  await api("DELETE", `/minds/${mind.id}/keys/${old.id}`, token);
}
const { key } = await api("POST", `/minds/${mind.id}/keys`, token, { name: DEMO_KEY });
const { url } = await api("POST", `/minds/${mind.id}/login-link`, token);

console.log(`
edgemind is running, with everything it talks to standing in locally. Ctrl-C stops all of it.

  Worker             ${base}          API docs ${base}/docs
  Telegram stand-in  http://127.0.0.1:${ports.telegram}          the bot: type below (/start, /remember I drink tea, /recall, /help)
  Model stand-in     http://127.0.0.1:${ports.model}/v1       answers extraction, consolidation and chat

Web UI, signed in as "demo" in the mind "demo" (the link works once, for 10 minutes):
  ${url}

A mind key for agents (REST and MCP; shown once): ${key}

For the README's examples, paste this into another terminal:
  export PORT=${ports.worker} BASE=${base} ADMIN='${settings.ADMIN_TOKEN}' TOKEN='${token}' MIND=${mind.id} KEY='${key}'

Type a message for the bot:`);

createInterface({ input: process.stdin }).on("line", telegram.say).on("close", () => {
  // Piped input ran out: keep serving until Ctrl-C.
});

/** Waits until the Worker answers /health. */
async function waitForHealth() {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  console.error(`the Worker did not answer ${base}/health within 3 minutes`);
  stop(1);
}

// What `npm run dev` and `npm run demo` share: the local settings file, the D1 migrations of
// every local database, and `wrangler dev` itself. Local D1 and Durable Objects only: no
// Cloudflare account and no network are needed.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { applyLocalMigrations } from "./local-d1.mjs";

export const root = path.resolve(import.meta.dirname, "..");
export const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
export const devVarsPath = path.join(root, ".dev.vars");
export const wranglerEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};

/**
 * The local ports, all from PORT (default 8787): the Worker on PORT, the Telegram stand-in on
 * PORT+1, the model stand-in on PORT+2 and the webhook receiver on PORT+3, unless
 * STAND_IN_PORT, MODEL_STAND_IN_PORT or WEBHOOK_RECEIVER_PORT say otherwise.
 */
export function localPorts(env = process.env) {
  const worker = Number(env.PORT ?? 8787);
  return {
    worker,
    telegram: Number(env.STAND_IN_PORT ?? worker + 1),
    model: Number(env.MODEL_STAND_IN_PORT ?? worker + 2),
    webhooks: Number(env.WEBHOOK_RECEIVER_PORT ?? worker + 3),
  };
}

/**
 * The port a stand-in run on its own listens on: its own variable, else the loopback port the
 * Worker is already pointed at in .dev.vars (`setting`), else the default of localPorts().
 */
export function standInPort(kind, setting) {
  const own = { telegram: "STAND_IN_PORT", model: "MODEL_STAND_IN_PORT" }[kind];
  if (process.env[own]) return Number(process.env[own]);
  const pointed = /^http:\/\/127\.0\.0\.1:(\d+)/.exec(readVars()[setting] ?? "");
  return pointed ? Number(pointed[1]) : localPorts()[kind];
}

/** A random secret of 32 URL-safe characters. */
export const newSecret = () => randomBytes(24).toString("base64url");

/** Whether 127.0.0.1:port can be listened on now. */
export function portIsFree(port) {
  return new Promise((resolve) => {
    const probe = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

/** The settings of a `.dev.vars`-style file (NAME=value lines); {} when it does not exist. */
export function readVars(file = devVarsPath) {
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.includes("="));
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

/**
 * Creates .dev.vars with a random ADMIN_TOKEN, JWT_SECRET and WEBHOOK_ENCRYPTION_KEY, and webhooks
 * to this machine allowed, when there is none; adds the webhook settings to one made before them.
 */
export function ensureDevVars() {
  const webhooks = { WEBHOOK_ENCRYPTION_KEY: newSecret() + newSecret(), WEBHOOK_ALLOW_LOOPBACK: "1" };
  if (existsSync(devVarsPath)) {
    const missing = Object.entries(webhooks).filter(([name]) => !(name in readVars()));
    if (missing.length === 0) return;
    appendFileSync(devVarsPath, missing.map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
    console.log(`added ${missing.map(([k]) => k).join(" and ")} to .dev.vars`);
    return;
  }
  const settings = { ADMIN_TOKEN: newSecret(), JWT_SECRET: newSecret(), ...webhooks };
  writeFileSync(devVarsPath, Object.entries(settings).map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
  console.log("created .dev.vars with a random ADMIN_TOKEN, JWT_SECRET and WEBHOOK_ENCRYPTION_KEY, webhooks to this machine allowed");
}

/**
 * Applies the migrations to every local database wrangler.toml declares (the directory and each
 * shard), one line each; `persistTo` names another local state directory than wrangler's default.
 * Resolves true when every database is up to date.
 */
export function applyMigrations({ persistTo } = {}) {
  return applyLocalMigrations(path.join(root, "wrangler.toml"), persistTo);
}

/**
 * The devtools port `wrangler dev` opens: INSPECTOR_PORT, else wrangler's own choice (9229 or
 * the next free port above it).
 */
export function inspectorArgs(env = process.env) {
  if (!env.INSPECTOR_PORT) return [];
  const port = Number(env.INSPECTOR_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`INSPECTOR_PORT must be a port number (1-65535), not "${env.INSPECTOR_PORT}"`);
  }
  return ["--inspector-port", String(port)];
}

/**
 * Starts `wrangler dev` on 127.0.0.1:port with cron triggers reachable over HTTP. `detached`
 * puts it in a process group of its own, so the caller can stop workerd with it.
 */
export function startWorker(port, extraArgs = [], options = {}) {
  const inspector = options.inspectorPort ? ["--inspector-port", String(options.inspectorPort)] : inspectorArgs();
  return spawn(wrangler, ["dev", "--ip", "127.0.0.1", "--port", String(port), "--test-scheduled", ...inspector, ...extraArgs], {
    cwd: root,
    env: wranglerEnv,
    stdio: options.stdio ?? "inherit",
    detached: options.detached ?? false,
  });
}

/** Calls `handle` with a request's whole body once it ends; past `max` bytes the connection is ended instead. */
export function onBoundedBody(req, max, handle) {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > max) req.destroy();
    else chunks.push(chunk);
  });
  req.on("end", () => handle(Buffer.concat(chunks)));
}

/** A port on 127.0.0.1 that nothing listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A Worker of its own for a test or a check: the migrations applied to a fresh local state in
 * `persistTo`, `wrangler dev` on free ports (its devtools port too, so several run side by side)
 * with `vars`, in a process group of its own. Resolves once /health answers, 503 included (up,
 * with a setting at fault that /health names); `stop` ends workerd with it.
 */
export async function startLocalWorker({ persistTo, vars = {}, port, timeoutMs = 90_000 }) {
  if (!(await applyMigrations({ persistTo }))) throw new Error("the migrations did not apply to a fresh local D1");
  const listen = port ?? (await freePort());
  const settings = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const args = ["--local", "--persist-to", persistTo, "--show-interactive-dev-session=false", ...settings];
  const worker = startWorker(listen, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, inspectorPort: await freePort() });
  let output = "";
  worker.stdout.on("data", (d) => (output += d));
  worker.stderr.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${listen}`;
  const stop = () => {
    try {
      process.kill(-worker.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
    if (worker.exitCode !== null) throw new Error(`wrangler dev exited with ${worker.exitCode}\n${output.slice(-4000)}`);
    const status = await fetch(`${base}/health`).then((r) => r.status, () => 0);
    if (status === 200 || status === 503) return { base, worker, output: () => output, stop };
  }
  stop();
  throw new Error(`wrangler dev did not answer /health within ${timeoutMs / 1000} s\n${output.slice(-4000)}`);
}

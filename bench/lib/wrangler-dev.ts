import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { OFFLINE_ENV } from "./workerd";

const ROOT = path.join(import.meta.dirname, "../..");
const WRANGLER = path.join(ROOT, "node_modules/.bin/wrangler");

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/**
 * wrangler's own answer when its proxy lost the request on its way to the Worker (a Worker that
 * held its isolate too long, or left a request body unread): a plain-text 503, never the Worker's.
 */
export const isRestarted = (status: number, text: string) => status === 503 && text.includes("restarted mid-request");

export interface DevServer {
  url: string;
  /** The wrangler process: the runtime (workerd) runs among its descendants. */
  pid: number;
  stop(): Promise<void>;
}

// A benchmark writes from one address far faster than any client may: the limits are raised
// out of reach, so every write still pays for its rate-limit calls but none is refused.
const BENCH_RATE_LIMITS = { RATE_LIMIT_REQUESTS: "off" };

/**
 * `wrangler dev` on a free loopback port with its own local D1 (migrations applied) and the
 * given vars, offline. Resolves once /health answers. With `config`, another Worker (a wrangler
 * file of bench/workers, no D1) is served instead, ready once it answers anything. `extraArgs`
 * go to wrangler dev as they are (an inspector port).
 */
export async function startWranglerDev(vars: Record<string, string>, log: (line: string) => void, config?: string, extraArgs: string[] = []): Promise<DevServer> {
  const state = mkdtempSync(path.join(tmpdir(), "edgemind-dev-"));
  const env = { ...process.env, ...OFFLINE_ENV, XDG_CONFIG_HOME: path.join(state, "config") };
  if (config === undefined) {
    // Every database wrangler.toml declares (the directory and each shard) gets the migrations.
    const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    for (const [, database] of toml.matchAll(/^\[\[d1_databases\]\]\s*\nbinding\s*=\s*"([A-Z0-9_]+)"/gm)) {
      const migrate = spawnSync(WRANGLER, ["d1", "migrations", "apply", database!, "--local", "--persist-to", state], { cwd: ROOT, env, encoding: "utf8" });
      if (migrate.status !== 0) throw new Error(`migrations: ${migrate.stderr || migrate.stdout}`);
    }
  }
  const port = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", state, "--show-interactive-dev-session=false"];
  if (config !== undefined) args.push("--config", config);
  args.push(...extraArgs);
  for (const [k, v] of Object.entries({ ...(config === undefined ? BENCH_RATE_LIMITS : {}), ...vars })) args.push("--var", `${k}:${v}`);
  const child: ChildProcess = spawn(WRANGLER, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited: ${output.slice(-2000)}`);
    try {
      const res = await fetch(`${url}/health`);
      // 503: up, with a setting at fault that /health names.
      if (res.ok || res.status === 503 || config !== undefined) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGTERM");
      throw new Error(`wrangler dev did not start: ${output.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`wrangler dev ready on ${url}`);
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

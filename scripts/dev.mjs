// Runs edgemind locally: creates .dev.vars with random secrets if missing, applies the D1
// migrations to every local database (the directory and each shard), then starts `wrangler dev` on http://127.0.0.1:8787.
// Local D1 and Durable Objects only: no Cloudflare account and no network are needed.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
};

// Before the migrations, which take a while: wrangler's own message would suggest --port, not PORT.
const port = process.env.PORT ?? "8787";
if (!(await portIsFree(Number(port)))) {
  console.error(`127.0.0.1:${port} is already in use (another npm run dev?): stop it, or serve another port with PORT=8790 npm run dev`);
  process.exit(1);
}

/** Whether 127.0.0.1:port can be listened on now. */
function portIsFree(port) {
  return new Promise((resolve) => {
    const probe = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

const devVars = path.join(root, ".dev.vars");
if (!existsSync(devVars)) {
  const secret = () => randomBytes(24).toString("base64url");
  writeFileSync(devVars, `ADMIN_TOKEN=${secret()}\nJWT_SECRET=${secret()}\n`, { mode: 0o600 });
  console.log("created .dev.vars with a random ADMIN_TOKEN and JWT_SECRET");
}

// Every database gets the same migrations: the directory (DB) and each shard (SHARD_1, …).
for (const database of d1Bindings()) {
  const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", database, "--local"], { cwd: root, env, stdio: "inherit" });
  if (migrate.status !== 0) process.exit(migrate.status ?? 1);
}

/** The D1 bindings wrangler.toml declares, in order. */
function d1Bindings() {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  return [...toml.matchAll(/^\[\[d1_databases\]\]\s*\nbinding\s*=\s*"([A-Z0-9_]+)"/gm)].map((m) => m[1]);
}

const dev = spawn(wrangler, ["dev", "--ip", "127.0.0.1", "--port", port, "--test-scheduled", ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

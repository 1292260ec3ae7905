// Runs edgemind locally: creates .dev.vars with random secrets if missing, lists every
// configuration problem of wrangler.toml with .dev.vars (the checks /health answers from),
// applies the D1 migrations to every local database (the directory and each shard, one line
// each), then starts `wrangler dev` on http://127.0.0.1:8787 (PORT chooses another port).
import { localProblems, problemLines } from "./configuration.mjs";
import { applyMigrations, ensureDevVars, localPorts, portIsFree, readVars, startWorker } from "./local.mjs";

// Before the migrations, which take a while: wrangler's own message would suggest --port, not PORT.
const port = localPorts().worker;
if (!(await portIsFree(port))) {
  console.error(`127.0.0.1:${port} is already in use (another npm run dev?): stop it, or serve another port with PORT=8790 npm run dev`);
  process.exit(1);
}

ensureDevVars();
// The routes that need none of them work: the Worker starts, and /health names the settings too.
const problems = localProblems(readVars());
if (problems.length > 0) console.error(["configuration problems (wrangler.toml and .dev.vars); the routes that need these settings answer 503:", ...problemLines(problems)].join("\n"));
if (!(await applyMigrations())) process.exit(1);

const dev = startWorker(port, process.argv.slice(2));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));

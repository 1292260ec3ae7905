// The deploy check: the configuration checks /health answers from, over wrangler.toml's vars and
// bindings (secrets are put with `wrangler secret put` and not seen here; the README's deploy
// commands must put each the Worker needs), then builds the Worker exactly as `wrangler deploy`
// would (`--dry-run`: no account, no network, nothing uploaded) and prints the bundle's size. It
// fails on a configuration problem, a needed secret the README does not put, when the build fails
// or when the bundle passes Workers' size limit for the free plan (3 MB gzipped). Run with `node --import tsx`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { SECRETS } from "../src/config.ts";
import { deployProblems, problemLines } from "./configuration.mjs";
import { root, wrangler, wranglerEnv } from "./local.mjs";

const problems = deployProblems();
if (problems.length > 0) {
  console.error(["deploy check: configuration problems in wrangler.toml:", ...problemLines(problems)].join("\n"));
  process.exit(1);
}
console.log(`deploy check: wrangler.toml's settings pass every check; the secrets (${SECRETS.join(", ")}) are not seen here: /health names any missing`);

const FREE_PLAN_GZIP_KIB = 3 * 1024;

/** The secrets a deployment needs (src/worker-env.d.ts): each must be set by a `wrangler secret put` of the README. */
const REQUIRED_SECRETS = ["ADMIN_TOKEN", "JWT_SECRET", "WEBHOOK_ENCRYPTION_KEY"];
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const unset = REQUIRED_SECRETS.filter((name) => !new RegExp(`npx wrangler secret put ${name}\\b`).test(readme));
if (unset.length > 0) {
  console.error(`deploy check: the README's deploy commands set no ${unset.join(", ")} (npx wrangler secret put …), which the Worker needs`);
  process.exit(1);
}

const outdir = mkdtempSync(path.join(tmpdir(), "edgemind-deploy-check-"));
try {
  const build = spawnSync(wrangler, ["deploy", "--dry-run", "--outdir", outdir], { cwd: root, env: wranglerEnv, encoding: "utf8" });
  const output = `${build.stdout}${build.stderr}`;
  const size = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output);
  if (build.status !== 0 || !size) {
    console.error(`deploy check: wrangler deploy --dry-run failed (exit ${build.status}):\n${output}`);
    process.exit(1);
  }
  const [total, gzip] = [Number(size[1]), Number(size[2])];
  const mb = (kib) => `${(kib / 1024).toFixed(2)} MB`;
  console.log(`deploy check: wrangler deploy --dry-run built the Worker: ${mb(total)}, ${mb(gzip)} gzipped (free plan limit ${mb(FREE_PLAN_GZIP_KIB)})`);
  console.log(`deploy check: a deployment needs the secrets ${REQUIRED_SECRETS.join(", ")} (npx wrangler secret list shows which it has)`);
  if (gzip > FREE_PLAN_GZIP_KIB) {
    console.error(`deploy check: the bundle is ${mb(gzip)} gzipped, over the free plan's ${mb(FREE_PLAN_GZIP_KIB)}`);
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

// The deploy check: builds the Worker exactly as `wrangler deploy` would (`--dry-run`: no
// account, no network, nothing uploaded) and prints the bundle's size. It fails when the build
// fails or the bundle passes Workers' size limit for the free plan (3 MB gzipped).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { root, wrangler, wranglerEnv } from "./local.mjs";

const FREE_PLAN_GZIP_KIB = 3 * 1024;

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
  if (gzip > FREE_PLAN_GZIP_KIB) {
    console.error(`deploy check: the bundle is ${mb(gzip)} gzipped, over the free plan's ${mb(FREE_PLAN_GZIP_KIB)}`);
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

const ROOT = path.join(import.meta.dirname, "../..");
const RESULT_MARK = "@@bench-result ";
const PROGRESS_MARK = "@@bench-progress ";

export const OFFLINE_ENV = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" };

/**
 * Runs one job file of bench/jobs inside workerd (vitest-pool-workers, fresh storage) with
 * the given input, shows its progress lines, and returns the result it reported. `args` go to
 * vitest (a test name filter).
 */
export async function runJob<T>(job: string, input: unknown, log: (line: string) => void, args: string[] = []): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), "edgemind-bench-"));
  const inputFile = path.join(dir, "input.json");
  writeFileSync(inputFile, JSON.stringify(input));
  const child = spawn(
    path.join(ROOT, "node_modules/.bin/vitest"),
    ["run", "--config", "bench/vitest.bench.config.ts", `bench/jobs/${job}.job.ts`, ...args],
    { cwd: ROOT, env: { ...process.env, ...OFFLINE_ENV, BENCH_INPUT: inputFile, FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let result: T | undefined;
  const tail: string[] = [];
  const read = (stream: NodeJS.ReadableStream) =>
    createInterface({ input: stream }).on("line", (line) => {
      const at = (mark: string) => line.indexOf(mark);
      if (at(RESULT_MARK) >= 0) result = JSON.parse(line.slice(at(RESULT_MARK) + RESULT_MARK.length)) as T;
      else if (at(PROGRESS_MARK) >= 0) log(`  [${job}] ${line.slice(at(PROGRESS_MARK) + PROGRESS_MARK.length)}`);
      else {
        tail.push(line);
        if (tail.length > 40) tail.shift();
      }
    });
  read(child.stdout);
  read(child.stderr);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (result === undefined) throw new Error(`job ${job} reported no result (exit ${code}):\n${tail.join("\n")}`);
  return result;
}

// Reading the README's shell examples and running them with bash, for the tests that run them as written.
import { spawn } from "node:child_process";

/** The ```sh blocks written directly under `heading` (not under its subsections). */
export function shellBlocks(markdown: string, heading: string): string[] {
  const blocks: string[] = [];
  let current = "";
  let block: string[] | null = null;
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      if (fenced && block) blocks.push(block.join("\n"));
      block = !fenced && current === heading && line.trim() === "```sh" ? [] : null;
      fenced = !fenced;
    } else if (fenced) {
      block?.push(line);
    } else if (/^#{1,6} /.test(line)) {
      current = line.trim();
    }
  }
  return blocks;
}

/** Runs a script with bash in `cwd`; resolves its exit code and everything it printed. */
export function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The first lines of a script in which every curl fails on an HTTP error status, and so does the script (pipefail). */
export const FAILING_CURL = ["set -euo pipefail", 'curl() { command curl --fail-with-body --show-error "$@"; }'];

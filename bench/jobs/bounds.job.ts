import { env } from "cloudflare:workers";
import { it } from "vitest";
import { DIFF_MAX_LINES } from "../../src/notes/cold-memory";
import { request, newTenant } from "./http-client";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as { repeats: number };

interface Case {
  name: string;
  status: number;
  ms: number[];
}

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join("\n") + "\n";

/** Calls `path` `repeats` times and keeps each answer's time. */
async function timed(name: string, repeats: number, call: () => Promise<{ status: number }>): Promise<Case> {
  const ms: number[] = [];
  let status = 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    status = (await call()).status;
    ms.push(performance.now() - t0);
  }
  progress(`${name}: ${status}, median ${ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!.toFixed(0)} ms`);
  return { name, status, ms };
}

it("times the largest inputs the Worker accepts", async () => {
  const t = await newTenant("bounds");
  const auth = { token: t.token, mind: t.mind };
  // v1 and v2 differ in every line; v3 changes every other line of v2; v4 is one line too long.
  const every = lines(DIFF_MAX_LINES, "b").split("\n");
  const texts = [
    lines(DIFF_MAX_LINES, "a"),
    lines(DIFF_MAX_LINES, "b"),
    every.map((l, i) => (i % 2 === 0 && l !== "" ? `${l}x` : l)).join("\n"),
    lines(DIFF_MAX_LINES + 1, "c"),
  ];
  for (const [version, text] of texts.entries()) {
    const res = await request("PUT", "/cold", { ...auth, body: { text, version } });
    if (res.status !== 200) throw new Error(`cold: ${res.status} ${res.text}`);
  }
  const diff = (from: number, to: number) => () => request("GET", `/cold/diff?from=${from}&to=${to}`, auth);
  const cases = [
    await timed(`diff, ${DIFF_MAX_LINES} lines, every line different`, input.repeats, diff(1, 2)),
    await timed(`diff, ${DIFF_MAX_LINES} lines, every other line changed`, input.repeats, diff(2, 3)),
    await timed(`diff, ${DIFF_MAX_LINES} lines against the empty version`, input.repeats, diff(0, 2)),
    await timed(`diff, ${DIFF_MAX_LINES + 1} lines (refused)`, input.repeats, diff(3, 4)),
  ];
  report({ cases });
});

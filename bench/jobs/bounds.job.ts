import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { it } from "vitest";
import { minds } from "../../src/db/schema";
import { createDeps } from "../../src/deps";
import { DIFF_MAX_LINES } from "../../src/notes/cold-memory";
import { IMPORT_MAX_BYTES } from "../../src/portability/archive";
import { acceptImport, runImport } from "../../src/portability/import/imports";
import { newTenant, request } from "./http-client";
import { largeArchive } from "./large-archive";
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
  cases.push(await timed(`import, ${IMPORT_MAX_BYTES / 1024 / 1024} MB + 1 byte (refused)`, 1, async () => {
    const target = await newTenant("bounds-refused");
    return request("POST", `/minds/${target.mind}/import`, { token: target.token, rawBody: new Uint8Array(IMPORT_MAX_BYTES + 1).fill(0x20) });
  }));
  report({ cases, largeImport: await measureLargeImport() });
});

/** Another mind's search while something runs: each answer's time, one request after another. */
function prober(auth: { token: string; mind: string }) {
  const ms: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await request("GET", "/memory/search?q=river%20mills", auth);
      if (res.status !== 200) throw new Error(`search: ${res.status} ${res.text}`);
      ms.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { stop: async () => ((running = false), await done, ms) };
}

/**
 * The archive just under the byte bound, imported twice into fresh minds: through the API (202,
 * then written by the mind's operations object in the background, followed with GET until done), and
 * written to the end by the same staging and slice code inside the caller, as an import that
 * held its request would be. Meanwhile another client searches another mind.
 */
async function measureLargeImport() {
  const other = await newTenant("bounds-other");
  const otherAuth = { token: other.token, mind: other.mind };
  for (let i = 0; i < 200; i++) {
    const res = await request("POST", "/memory", { ...otherAuth, body: { category: "fact", key: `river_${i}`, content: `the river keeps running south past old mills ${i}` } });
    if (res.status !== 201 && res.status !== 200) throw new Error(`memory: ${res.status} ${res.text}`);
  }
  const idle = prober(otherAuth);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const quiet = await idle.stop();

  const { body, lines } = largeArchive();
  progress(`import: ${lines} lines, ${(body.length / 1024 / 1024).toFixed(1)} MB`);

  const target = await newTenant("bounds-import");
  const during = prober(otherAuth);
  const t0 = performance.now();
  const answer = await request("POST", `/minds/${target.mind}/import`, { token: target.token, rawBody: body });
  const accepted = performance.now() - t0;
  if (answer.status !== 202) throw new Error(`import: ${answer.status} ${answer.text.slice(0, 300)}`);
  const importId = (JSON.parse(answer.text) as { import: { id: string } }).import.id;
  progress(`import: 202 after ${accepted.toFixed(0)} ms`);
  let imported: { state: string; rows_written: number; rows_total: number };
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await request("GET", `/minds/${target.mind}/import/${importId}`, { token: target.token });
    imported = JSON.parse(res.text) as typeof imported;
    if (imported.state === "done" || imported.state === "failed") break;
  }
  const total = performance.now() - t0;
  const background = await during.stop();
  if (imported.state !== "done") throw new Error(`import ${imported.state}`);
  progress(`import: done after ${(total / 1000).toFixed(1)} s, ${imported.rows_written} rows`);

  const inline = await newTenant("bounds-inline");
  const deps = createDeps(env);
  const accountId = (await deps.directory.select({ accountId: minds.accountId }).from(minds).where(eq(minds.id, inline.mind)).get())!.accountId;
  const held = prober(otherAuth);
  const t1 = performance.now();
  const staged = (await acceptImport(deps, accountId, inline.mind, [body])).archiveImport;
  const inlineImport = await runImport(deps, inline.mind, staged.id, () => true);
  const inlineTotal = performance.now() - t1;
  const inlineProbe = await held.stop();
  if (inlineImport?.state !== "done") throw new Error(`in-line import ${inlineImport?.state}`);
  progress(`in-line: done after ${(inlineTotal / 1000).toFixed(1)} s`);
  const shardOf = async (mindId: string) => (await deps.directory.select({ shard: minds.shard }).from(minds).where(eq(minds.id, mindId)).get())!.shard;
  return {
    shards: { searched: await shardOf(other.mind), background: await shardOf(target.mind), inline: await shardOf(inline.mind) },
    megabytes: body.length / 1024 / 1024,
    lines,
    rows: imported.rows_written,
    acceptedMs: accepted,
    backgroundTotalMs: total,
    inlineTotalMs: inlineTotal,
    searchMs: { idle: quiet, background, inline: inlineProbe },
  };
}

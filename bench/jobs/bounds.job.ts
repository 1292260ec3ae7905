import { env } from "cloudflare:workers";
import { it } from "vitest";
import { IMPORT_MAX_BYTES } from "../../src/minds/archive";
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
  // While the large import runs, another client keeps reading: its slowest answer shows whether the Worker stalled.
  const probe = { running: true, ms: [] as number[] };
  const prober = (async () => {
    while (probe.running) {
      const t0 = performance.now();
      await request("GET", "/cold", auth);
      probe.ms.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  cases.push(await timed(`import, archive just under ${IMPORT_MAX_BYTES / 1024 / 1024} MB`, 1, importLarge));
  probe.running = false;
  await prober;
  cases.push({ name: `GET /cold by another client during that import (${probe.ms.length} requests)`, status: 200, ms: probe.ms });
  cases.push(await timed(`import, ${IMPORT_MAX_BYTES / 1024 / 1024} MB + 1 byte (refused)`, 1, async () => {
    const target = await newTenant("bounds-refused");
    return request("POST", `/minds/${target.mind}/import`, { token: target.token, rawBody: new Uint8Array(IMPORT_MAX_BYTES + 1).fill(0x20) });
  }));
  report({ cases });
});

const WORDS = "the quick brown fox jumps over a lazy dog while the river keeps running south past old mills".split(" ");
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length]).join(" ");

/** An archive just under the byte bound: memories, then one long session, imported into a new mind. */
async function importLarge() {
  const at = "2026-01-01T00:00:00.000Z";
  const lines = [
    JSON.stringify({ type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "big", locale: "en", retention_hours: null, settings: {} } }),
  ];
  let size = lines[0]!.length;
  const add = (line: object) => {
    const text = JSON.stringify(line);
    if (size + text.length + 1 > IMPORT_MAX_BYTES - 1024) return false;
    lines.push(text);
    size += text.length + 1;
    return true;
  };
  for (let i = 0; i < 10_000; i++) {
    add({ type: "memory", id: `mem_${i}`, agent: "default", category: "fact", key: `fact_${i}`, content: words(200, i), tags: ["bulk"], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at });
  }
  add({ type: "chat", id: "chat_1", kind: "api", external_id: "default", active_session_id: "ses_1", created_at: at });
  add({ type: "session", id: "ses_1", chat_id: "chat_1", repo_path: null, task_name: "long", conversation_id: "c", extracted_through_message_id: 0, created_at: at, last_message_at: at });
  for (let i = 1; add({ type: "message", id: i, session_id: "ses_1", role: "user", content: words(5000, i), ephemeral: false, tool: null, created_at: at }); i++);
  progress(`import: ${lines.length} lines, ${(size / 1024 / 1024).toFixed(1)} MB`);
  const target = await newTenant("bounds-import");
  const body = new TextEncoder().encode(lines.join("\n") + "\n");
  lines.length = 0;
  const res = await request("POST", `/minds/${target.mind}/import`, { token: target.token, rawBody: body });
  if (res.status !== 200) throw new Error(`import: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

import { randomBytes } from "node:crypto";
import path from "node:path";
import { loadLocomo } from "../lib/locomo";
import { englishText, englishVocabulary, russianText } from "../lib/long-texts";
import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { isRestarted, startWranglerDev } from "../lib/wrangler-dev";

// Long Russian and English texts through `wrangler dev`, English and Russian alternating, as
// many as SOAK_REQUESTS. First the product's text normalisation alone in a Worker of its own
// (bench/workers: where the old stemmer aborted workerd within a few hundred texts), then the
// whole Worker: every `POST /memory` is stemmed, indexed and written like a user's.
const REQUESTS = Number(process.env.SOAK_REQUESTS ?? 2_000);
const CONCURRENCY = 4;
const PROBE_EVERY = 100;
const QUERIES = ["painting with my family", "любимые воспоминания о путешествиях", "guitar concert", "работа над проектом"];
const NORMALIZE_WORKER = path.join(import.meta.dirname, "../workers/normalize.wrangler.toml");

interface Phase {
  name: string;
  statuses: Map<number, number>;
  latencies: number[];
  chars: number;
  probes: boolean[];
  /** Answers that were wrangler's "restarted mid-request" 503, not the Worker's. */
  restarted: number;
  seconds: number;
  died: string | null;
}

/** Sends REQUESTS long texts through `send`, CONCURRENCY at a time, probing every PROBE_EVERY. */
async function drive(
  name: string,
  text: (i: number) => string,
  send: (i: number, text: string) => Promise<Response>,
  probe: (n: number) => Promise<boolean>,
  log: (line: string) => void,
): Promise<Phase> {
  const phase: Phase = { name, statuses: new Map(), latencies: [], chars: 0, probes: [], restarted: 0, seconds: 0, died: null };
  const t0 = Date.now();
  let next = 0;
  const worker = async () => {
    while (phase.died === null) {
      const i = next++;
      if (i >= REQUESTS) return;
      const body = text(i);
      phase.chars += body.length;
      const started = performance.now();
      try {
        const res = await send(i, body);
        if (isRestarted(res.status, await res.text())) phase.restarted++;
        phase.latencies.push(performance.now() - started);
        phase.statuses.set(res.status, (phase.statuses.get(res.status) ?? 0) + 1);
      } catch (error) {
        phase.died = `request ${i}: ${error instanceof Error ? String(error.cause ?? error.message) : String(error)}`;
        return;
      }
      if (i % PROBE_EVERY === PROBE_EVERY - 1) {
        phase.probes.push(await probe(phase.probes.length));
        log(`  [soak] ${name}: ${i + 1} of ${REQUESTS}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  phase.seconds = (Date.now() - t0) / 1000;
  phase.probes.push(await probe(phase.probes.length));
  return phase;
}

const answered = (p: Phase) => [...p.statuses.values()].reduce((a, b) => a + b, 0);
const answering = (p: Phase) => p.died === null && p.probes.at(-1) === true;

export const soak: Part = {
  name: "soak",
  title: "Soak: long Russian and English texts through wrangler dev",
  async run(log) {
    const vocabulary = englishVocabulary(loadLocomo().conversations.flatMap((c) => c.turns));
    const text = (i: number) => {
      const size = 5_000 + ((i * 7919) % 3_001);
      return i % 2 === 0 ? englishText(vocabulary, i, size) : russianText(i, size);
    };
    const phases: [Phase, number][] = [];

    const normalizer = await startWranglerDev({}, log, NORMALIZE_WORKER);
    try {
      const alive = () => fetch(normalizer.url, { method: "POST", body: "жив ли" }).then((r) => r.ok, () => false);
      phases.push([await drive("src/memory/normalize.ts alone", text, (_, body) => fetch(normalizer.url, { method: "POST", body }), alive, log), 200]);
    } finally {
      await normalizer.stop();
    }

    const admin = randomBytes(18).toString("base64url");
    const server = await startWranglerDev({ ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url") }, log);
    try {
      const post = (route: string, token: string, body: unknown, mind?: string) =>
        fetch(`${server.url}${route}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(mind && { "X-Mind-Id": mind }) },
          body: JSON.stringify(body),
        });
      const { token } = (await (await post("/auth/token", admin, { account: "soak" })).json()) as { token: string };
      const mind = ((await (await post("/minds", token, { name: "soak" })).json()) as { id: string }).id;
      const headers = { Authorization: `Bearer ${token}`, "X-Mind-Id": mind };
      const probe = async (n: number) => {
        const health = await fetch(`${server.url}/health`).then((r) => r.ok, () => false);
        const q = QUERIES[n % QUERIES.length]!;
        const search = await fetch(`${server.url}/memory/search?q=${encodeURIComponent(q)}&limit=10`, { headers }).then((r) => r.ok, () => false);
        return health && search;
      };
      const store = (i: number, content: string) => post("/memory", token, { category: "context", key: `soak_${i}`, content, tags: [i % 2 === 0 ? "en" : "ru"] }, mind);
      phases.push([await drive("POST /memory, whole Worker", text, store, probe, log), 201]);
    } finally {
      await server.stop();
    }

    const rows = phases.map(([p, ok]) => [
      p.name,
      fmt(REQUESTS, 0),
      fmt(answered(p), 0),
      fmt(p.statuses.get(ok) ?? 0, 0),
      [...p.statuses].filter(([s]) => s !== ok).map(([s, n]) => `${s}×${n}`).join(", ") || "none",
      fmt(answered(p) > 0 ? p.chars / answered(p) : 0, 0),
      fmt(p.seconds, 0),
      percentile(p.latencies, 50),
      percentile(p.latencies, 95),
      `${p.probes.filter(Boolean).length} of ${p.probes.length}`,
      fmt(p.restarted, 0),
      answering(p) ? "yes" : "NO",
    ]);
    const markdown = [
      `\`wrangler dev\` started by the bench (offline), ${fmt(REQUESTS, 0)} texts of 5,000–8,000 characters per phase, English (words drawn from LoCoMo's dialogue) and Russian (stems with many endings, made from a seed) alternating, ${CONCURRENCY} at a time; every ${PROBE_EVERY} texts a probe (a short text; for the whole Worker \`GET /health\` and a search). The first phase runs the product's text normalisation in a Worker of its own (bench/workers/normalize-worker.ts); the second, one mind on the whole Worker with local D1.`,
      "",
      table(["phase", "texts", "answered", "2xx", "other statuses", "mean chars", "seconds", "p50 ms", "p95 ms", "probes answered", "restarted 503s", "answering at the end"], rows),
      ...phases.filter(([p]) => p.died).map(([p]) => `\n${p.name}: the Worker stopped answering at ${p.died}.`),
    ].join("\n");
    const json = phases.map(([p, ok]) => ({ ...p, statuses: Object.fromEntries(p.statuses), latencies: undefined, ok, p50: percentile(p.latencies, 50), p95: percentile(p.latencies, 95) }));
    const failed = phases.some(([p, ok]) => !answering(p) || p.restarted > 0 || (p.statuses.get(ok) ?? 0) !== REQUESTS);
    if (failed) throw new Error(`soak failed\n${markdown}`);
    return { json, markdown };
  },
};

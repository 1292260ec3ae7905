import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { dateTag, turnContent } from "../lib/dataset";
import { loadLocomo } from "../lib/locomo";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { startWranglerDev } from "../lib/wrangler-dev";

const MEMORIES = 1000;
const DURATION_S = 10;
const CONNECTIONS = 10;

async function json(url: string, init: RequestInit & { body?: string }): Promise<any> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${text}`);
  return JSON.parse(text);
}

export const http: Part = {
  name: "http",
  title: "HTTP end to end on wrangler dev",
  async run(log) {
    const locomo = loadLocomo();
    const turns = locomo.conversations.flatMap((c) => c.turns).slice(0, MEMORIES);
    const questions = locomo.conversations.flatMap((c) => c.questions.map((q) => q.text)).slice(0, 50);
    const admin = randomBytes(18).toString("base64url");
    const server = await startWranglerDev({ ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url") }, log);
    try {
      const post = (path: string, token: string, body: unknown, mind?: string) =>
        json(`${server.url}${path}`, {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...(mind && { "X-Mind-Id": mind }) },
          body: JSON.stringify(body),
        });
      const { token } = await post("/auth/token", admin, { account: "bench" });
      const mind = await post("/minds", token, { name: "bench" });
      const headers = { Authorization: `Bearer ${token}`, "X-Mind-Id": mind.id as string };
      for (let i = 0; i < turns.length; i += 10) {
        await Promise.all(
          turns.slice(i, i + 10).map((t, j) => post("/memory", token, { category: "context", key: `t${i + j}`, content: turnContent(t), tags: [dateTag(t)] }, mind.id)),
        );
        if (i % 200 === 190) log(`  [http] stored ${i + 10} memories`);
      }
      const load = async (name: string, paths: string[]) => {
        log(`  [http] ${name}: ${CONNECTIONS} connections for ${DURATION_S} s`);
        const r = await autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration: DURATION_S,
          headers,
          requests: paths.map((path) => ({ method: "GET", path })),
        });
        return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, non2xx: r.non2xx, errors: r.errors + r.timeouts };
      };
      const results = [
        await load("GET /memory/search", questions.map((q) => `/memory/search?q=${encodeURIComponent(q)}&limit=20`)),
        await load("GET /memory/recall", ["/memory/recall?limit=100"]),
        await load("GET /health (no D1: the floor)", ["/health"]),
      ];
      const markdown = [
        `\`wrangler dev\` started by the bench on a free loopback port (local D1 with the migrations applied, offline), one mind holding ${MEMORIES} LoCoMo turns written through \`POST /memory\`, a human JWT. autocannon: ${CONNECTIONS} connections for ${DURATION_S} s per route; search cycles through ${questions.length} LoCoMo questions.`,
        "",
        table(
          ["route", "requests/s", "p50 ms", "p99 ms", "requests", "non-2xx", "errors"],
          results.map((r) => [r.name, r.rps, r.p50, r.p99, fmt(r.total, 0), fmt(r.non2xx, 0), fmt(r.errors, 0)]),
        ),
      ].join("\n");
      return { json: { memories: MEMORIES, connections: CONNECTIONS, durationS: DURATION_S, results }, markdown };
    } finally {
      await server.stop();
    }
  },
};

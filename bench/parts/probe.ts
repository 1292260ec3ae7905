import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { accessWorks, authorizedCode, exchange, refresh, type Tokens } from "../lib/oauth-client";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { type DevServer, freePort, startWranglerDev } from "../lib/wrangler-dev";

// An attack probe's reproductions through `wrangler dev`: oversized X-Mind-Id headers, each value
// new (they must be answered 400 before any lookup, and leave the runtime's memory where it was),
// and races on one OAuth grant: 2 and 10 requests at once spending one refresh token or one
// authorization code (exactly one may win, and the reuse revokes the grant with every token).
const HEADER_BYTES = 60 * 1024;
const FIRST = Number(process.env.PROBE_HEADERS ?? 1_200);
const MORE = 2 * FIRST;
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 20);
const CONCURRENCY = 4;

/** The resident memory (MB) of the runtime: every workerd process under the wrangler process. */
function runtimeRssMb(root: number): number {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid: number): boolean => pid === root || (parents.has(pid) && pid !== 1 && under(parents.get(pid)!));
  let kb = 0;
  for (const [pid, name] of names) {
    if (!name.includes("workerd") || !under(pid)) continue;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
}

const HEAP_USAGE = path.join(import.meta.dirname, "../lib/heap-usage.mjs");

/** The Worker isolate's JavaScript heap (MB) after a full garbage collection: what it still holds. */
function isolateHeapMb(inspectorPort: number): number {
  const run = spawnSync(process.execPath, ["--experimental-websocket", "--no-warnings", HEAP_USAGE, String(inspectorPort)], { encoding: "utf8", timeout: 120_000 });
  if (run.status !== 0) throw new Error(`heap usage: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { usedSize: number }).usedSize / 1024 / 1024;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000));

/** Sends `count` requests, CONCURRENCY at a time, counting their statuses. */
async function send(count: number, request: (i: number) => Promise<Response>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      // A connection kept alive through the pause of a measurement may have been closed meanwhile: sent once more.
      const res = await request(i)
        .catch(() => request(i))
        .catch((error: unknown) => {
          throw new Error(`request ${i}: ${error instanceof Error ? String(error.cause ?? error.message) : String(error)}`);
        });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

/** A value of HEADER_BYTES that no other request sent: `mind_` and then the request's number, padded. */
const distinct = (prefix: string, i: number) => `${prefix}${i}_`.padEnd(HEADER_BYTES, "x");
const described = (statuses: Map<number, number>) => [...statuses].map(([s, n]) => `${s}×${n}`).join(", ");

interface HeaderPhase {
  phase: string;
  requests: number;
  statuses: string;
  /** The isolate's JavaScript heap after a full collection, and its growth over the phase. */
  heapMb: number;
  heapGrowthMb: number;
  /** The runtime's resident memory (every workerd process under wrangler), and its growth. */
  rssMb: number;
  rssGrowthMb: number;
}

async function headers(server: DevServer, inspectorPort: number, token: string, mind: string, log: (line: string) => void): Promise<HeaderPhase[]> {
  const auth = { Authorization: `Bearer ${token}` };
  const phases: HeaderPhase[] = [];
  let [heap, rss] = [isolateHeapMb(inspectorPort), runtimeRssMb(server.pid)];
  const phase = async (name: string, count: number, request: (i: number) => Promise<Response>) => {
    const statuses = await send(count, request);
    await settle();
    const [heapNow, rssNow] = [isolateHeapMb(inspectorPort), runtimeRssMb(server.pid)];
    phases.push({ phase: name, requests: count, statuses: described(statuses), heapMb: heapNow, heapGrowthMb: heapNow - heap, rssMb: rssNow, rssGrowthMb: rssNow - rss });
    log(`  [probe] ${name}: ${described(statuses)}, isolate heap ${fmt(heapNow)} MB, runtime ${fmt(rssNow)} MB`);
    [heap, rss] = [heapNow, rssNow];
  };
  // Warm: the isolate, its caches and the JIT reach their working size first.
  await phase("warm-up, ordinary reads", 400, () => fetch(`${server.url}/memory?limit=1`, { headers: { ...auth, "X-Mind-Id": mind } }));
  await phase(`${HEADER_BYTES / 1024} KB of another header, each new (control)`, FIRST, (i) =>
    fetch(`${server.url}/memory?limit=1`, { headers: { ...auth, "X-Mind-Id": mind, "X-Probe-Padding": distinct("pad_", i) } }),
  );
  await phase(`${HEADER_BYTES / 1024} KB X-Mind-Id, each new`, FIRST, (i) => fetch(`${server.url}/memory?limit=1`, { headers: { ...auth, "X-Mind-Id": distinct("mind_", i) } }));
  await phase(`${HEADER_BYTES / 1024} KB X-Mind-Id, ${fmt(MORE, 0)} more`, MORE, (i) => fetch(`${server.url}/memory?limit=1`, { headers: { ...auth, "X-Mind-Id": distinct("mind_more_", i) } }));
  return phases;
}

interface RaceRow {
  race: string;
  rounds: number;
  oneWinner: number;
  doubleWinners: number;
  noWinner: number;
  revoked: number;
}

/** Rounds of `parallel` requests spending one code or one refresh token, each on a grant of its own. */
async function races(base: string, jwt: string, mind: string, log: (line: string) => void): Promise<RaceRow[]> {
  const rows: RaceRow[] = [];
  for (const kind of ["refresh", "code"] as const) {
    for (const parallel of [2, 10]) {
      const row: RaceRow = { race: `${parallel} ${kind === "refresh" ? "refreshes of one refresh token" : "exchanges of one code"}`, rounds: ROUNDS, oneWinner: 0, doubleWinners: 0, noWinner: 0, revoked: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const grant = await authorizedCode(base, jwt, mind);
        let race: () => Promise<Tokens>;
        if (kind === "code") race = () => exchange(base, grant);
        else {
          const first = await exchange(base, grant);
          race = () => refresh(base, grant.clientId, first.refresh_token!);
        }
        const answers = await Promise.all(Array.from({ length: parallel }, race));
        const winners = answers.filter((a) => a.status === 200);
        if (winners.length === 1) row.oneWinner++;
        else if (winners.length === 0) row.noWinner++;
        else row.doubleWinners++;
        // Revoked: no winner's access token gets through, nor does its refresh token.
        let alive = false;
        for (const w of winners) alive ||= (await accessWorks(base, w.access_token!)) || (await refresh(base, grant.clientId, w.refresh_token!)).status === 200;
        if (!alive) row.revoked++;
      }
      log(`  [probe] ${row.race}: ${row.oneWinner} rounds with one winner, ${row.doubleWinners} with more, revoked in ${row.revoked}`);
      rows.push(row);
    }
  }
  return rows;
}

export const probe: Part = {
  name: "probe",
  title: "Probe: oversized X-Mind-Id headers and races on one OAuth grant, through wrangler dev",
  async run(log) {
    const admin = randomBytes(18).toString("base64url");
    const inspectorPort = await freePort();
    const vars = { ADMIN_TOKEN: admin, JWT_SECRET: randomBytes(24).toString("base64url"), RATE_LIMIT_REGISTRATIONS_PER_IP: "0" };
    const server = await startWranglerDev(vars, log, undefined, ["--inspector-port", String(inspectorPort)]);
    let phases: HeaderPhase[];
    let raceRows: RaceRow[];
    try {
      const post = async (path: string, token: string, body: unknown) =>
        (await (await fetch(`${server.url}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) })).json()) as Record<string, string>;
      const jwt = (await post("/auth/token", admin, { account: "probe" })).token!;
      const mind = (await post("/minds", jwt, { name: "probe" })).id!;
      phases = await headers(server, inspectorPort, jwt, mind, log);
      // Connections left idle through the last measurement may have been closed: each failed one leaves the pool.
      for (let n = 0; n < 2 * CONCURRENCY; n++) await fetch(`${server.url}/health`).then((r) => r.arrayBuffer(), () => undefined);
      raceRows = await races(server.url, jwt, mind, log);
    } finally {
      await server.stop();
    }
    const markdown = [
      `\`wrangler dev\` started by the bench (offline, local D1, KV and Durable Objects), requests from Node ${CONCURRENCY} at a time. After each phase: the Worker isolate's JavaScript heap after a full garbage collection (what the isolate still holds, its caches among it; a heap snapshot collects first), read through the devtools port, and the resident memory of the workerd processes under wrangler (/proc), which also keeps whatever the runtime allocated for request buffers.`,
      "",
      table(
        ["phase", "requests", "statuses", "isolate heap MB", "heap growth MB", "runtime RSS MB", "RSS growth MB"],
        phases.map((p) => [p.phase, fmt(p.requests, 0), p.statuses, fmt(p.heapMb), fmt(p.heapGrowthMb), fmt(p.rssMb), fmt(p.rssGrowthMb)]),
      ),
      "",
      `Races on one grant, ${ROUNDS} rounds each, every round on a grant of its own. Revoked: after the race no winner's access token gets /mcp's tool list and no winner's refresh token refreshes.`,
      "",
      table(["race", "rounds", "one winner", "more than one", "none", "grant revoked"], raceRows.map((r) => [r.race, fmt(r.rounds, 0), fmt(r.oneWinner, 0), fmt(r.doubleWinners, 0), fmt(r.noWinner, 0), fmt(r.revoked, 0)])),
    ].join("\n");
    return { json: { phases, races: raceRows }, markdown };
  },
};

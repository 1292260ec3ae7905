import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { FORMAT_MEDIA_TYPES } from "../../src/portability/import/formats";
import lettaFile from "../portability/fixtures/letta-v2-garden-companion.af?raw";
import mem0File from "../portability/fixtures/mem0-get-all-v1.1.json?raw";
import { fuzzCase, mutateArchive, mutateBody } from "./fuzz-inputs";
import type { FuzzResult } from "./fuzz-result";
import { type JsonSchema, readApiDocument, sample } from "./openapi";

// Fuzzing every route of the Worker's own OpenAPI document, every MCP tool it lists, the
// import format and the peers' files an import takes (./fuzz-inputs.ts). The Worker must answer every request below 500, with no
// stack or SQL text, and keep answering.

type Json = Record<string, unknown>;

/** A valid file of each peer's, spoiled by a case's body mutation. */
const PEER_FILES = { mem0: mem0File, letta: lettaFile };

/** Text no answer may hold: a stack frame, an engine error's name, or a database's words. */
export const LEAK = /\n\s+at |\bat (async )?[\w$.<>]+ \(|D1_ERROR|SQLITE_|SqliteError|no such (table|column)|constraint failed|near "[^"]*": syntax|\b(TypeError|RangeError|ReferenceError|SyntaxError)\b|Cannot read propert|is not a function|drizzle/i;

/** The objects a fuzz run aims at: a mind of its own with one of everything in it. */
interface Target {
  token: string;
  key: string;
  mind: string;
  ids: Record<string, string>;
}

async function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  const res = await exports.default.fetch(new Request(`https://edgemind.fuzz${path}`, { method, headers, body }));
  return { status: res.status, text: await res.text() };
}

async function json<T>(method: string, path: string, token: string, body?: unknown, mind?: string): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  if (mind) headers["X-Mind-Id"] = mind;
  const res = await send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
  if (res.status >= 300) throw new Error(`fuzz set-up: ${method} ${path} → ${res.status} ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text) as T;
}

let tenants = 0;
async function newTarget(): Promise<Target> {
  const { token } = await json<{ token: string }>("POST", "/auth/token", env.ADMIN_TOKEN, { account: `fuzz-${Date.now()}-${tenants++}` });
  const mind = (await json<{ id: string }>("POST", "/minds", token, { name: "fuzz" })).id;
  const own = (path: string, body: unknown, method = "POST") => json<Json>(method, path, token, body, mind);
  const memory = await own("/memory", { category: "fact", key: "fuzz_fact", content: "Likes long walks", tags: ["walks"] });
  const session = await own("/sessions", { task_name: "fuzz" });
  await own(`/sessions/${session.id}/messages`, { role: "user", content: "hello there" });
  const note = await own("/notes", { text: "prefers tea" });
  await own("/cold", { text: "- tea", version: 0 }, "PUT");
  const key = await json<{ id: string; key: string }>("POST", `/minds/${mind}/keys`, token, {});
  const spareKey = await json<{ id: string }>("POST", `/minds/${mind}/keys`, token, {});
  const chat = session.chat as { id: string };
  return {
    token,
    key: key.key,
    mind,
    ids: { memory: String(memory.id), sessions: String(session.id), chats: chat.id, notes: String(note.id), minds: mind, keyId: spareKey.id, version: "1" },
  };
}

/** A URL cannot carry a lone surrogate: it becomes U+FFFD, as a browser sends it. */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

function fillPath(path: string, target: Target, params: (string | null)[]): string {
  let i = 0;
  return path.replace(/\/([a-z]+)\/\{([A-Za-z]+)\}/g, (_m, collection: string, param: string) => {
    const weird = params[i++];
    const own = param === "keyId" ? target.ids.keyId : param === "version" ? target.ids.version : target.ids[collection];
    return `/${collection}/${encodeURIComponent(wellFormed(weird ?? own ?? "missing"))}`;
  });
}


const SLOWEST_KEPT = 5;

/**
 * Sends `count` fuzzed requests generated from `seed` and checks every answer; every
 * `probeEvery` cases (and at the end) the Worker must still answer a health check and a read.
 */
export async function runFuzz(options: {
  seed: number;
  count: number;
  probeEvery?: number;
  progress?: (line: string) => void;
  /** Called with each request just before it is sent (to find one that does not return). */
  trace?: (line: string) => void;
  /** Cases before this one are generated (the same inputs for the seed) but not sent. */
  from?: number;
  /** Cases from this one on are not sent either (a range of the run, sent by one of several runners). */
  until?: number;
}): Promise<FuzzResult> {
  const { routes, components } = await readApiDocument();
  // /mcp is fuzzed through its tools, below; the webhook, /jobs and /shards check a shared secret first.
  const fuzzed = routes.filter((r) => !["/mcp", "/telegram/webhook", "/telegram/setup", "/jobs", "/shards", "/shards/{name}/minds", "/shards/moves/{mind_id}"].includes(r.path));
  let target = await newTarget();
  const mcpHeaders = (t: Target) => ({ Authorization: `Bearer ${t.key}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" });
  const listed = await send("POST", "/mcp", mcpHeaders(target), JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  const tools = (JSON.parse(listed.text) as { result: { tools: { name: string; inputSchema: JsonSchema }[] } }).result.tools;
  const exported = await send("GET", `/minds/${target.mind}/export`, { Authorization: `Bearer ${target.token}` });
  const archive = exported.text.trimEnd().split("\n");

  const result: FuzzResult = { cases: 0, byKind: {}, statuses: {}, failures: [], ms: [], slowest: [] };
  const cases = fc.sample(fuzzCase(fuzzed, tools.length), { seed: options.seed, numRuns: options.count });
  const probeEvery = options.probeEvery ?? 50;
  const probe = async (after: number) => {
    const health = await send("GET", "/health", {});
    const read = await send("GET", "/memory", { Authorization: `Bearer ${target.token}`, "X-Mind-Id": target.mind });
    if (health.status !== 200 || read.status !== 200) result.failures.push(`after case ${after}: the Worker stopped answering (${health.status}, ${read.status} ${read.text.slice(0, 200)})`);
  };

  for (const [n, c] of cases.entries()) {
    if (n < (options.from ?? 0) || n >= (options.until ?? Infinity)) continue;
    let method = "POST";
    let path = "/mcp";
    let headers: Record<string, string> = {};
    let body: string | undefined;
    let label: string = c.kind;
    if (c.kind === "route") {
      const route = fuzzed[c.route]!;
      method = route.method;
      const query = new URLSearchParams();
      for (const p of route.op.parameters ?? []) if (p.in === "query" && p.required) query.set(p.name, String(sample(p.schema, components)));
      for (const [k, v] of c.query) query.append(k, v);
      path = `${fillPath(route.path, target, c.params)}${query.size > 0 ? `?${query}` : ""}`;
      const credential = { human: target.token, key: target.key, none: null, garbage: "emk_fuzzfuzzfuzz.nothing" }[c.caller];
      if (credential) headers.Authorization = `Bearer ${credential}`;
      if (c.caller === "human") headers["X-Mind-Id"] = target.mind;
      const schema = route.op.requestBody?.content["application/json"]?.schema;
      if (schema && method !== "GET") {
        body = mutateBody(sample(schema, components), c.body);
        headers["Content-Type"] = c.contentType ?? "application/json";
      }
      label = `${route.method} ${route.path} as ${c.caller}, body ${c.body.kind}`;
    } else if (c.kind === "mcp") {
      const tool = tools[c.tool]!;
      headers = mcpHeaders(target);
      const valid = { jsonrpc: "2.0", id: n, method: "tools/call", params: { name: tool.name, arguments: sample(tool.inputSchema, {}) } };
      body = mutateBody(valid, c.body);
      label = `MCP ${tool.name}, body ${c.body.kind}`;
    } else if (c.kind === "import") {
      const { id } = await json<{ id: string }>("POST", "/minds", target.token, { name: `fuzz-import-${n}` });
      path = `/minds/${id}/import`;
      headers = { Authorization: `Bearer ${target.token}`, "Content-Type": "application/x-ndjson" };
      body = mutateArchive(archive, c.mutations);
      label = `import, ${c.mutations.map((m) => m.kind).join("+")}`;
    } else {
      const { id } = await json<{ id: string }>("POST", "/minds", target.token, { name: `fuzz-import-${n}` });
      path = `/minds/${id}/import${c.said === "query" ? `?format=${c.format}` : ""}`;
      headers = { Authorization: `Bearer ${target.token}`, "Content-Type": c.said === "media-type" ? FORMAT_MEDIA_TYPES[c.format] : "application/json" };
      body = mutateBody(JSON.parse(PEER_FILES[c.format]), c.body);
      label = `${c.format} import (said in the ${c.said}), body ${c.body.kind}`;
    }
    options.trace?.(wellFormed(`case ${n} (${label}): ${method} ${path.slice(0, 120)}, ${body?.length ?? 0} bytes`));
    const t0 = performance.now();
    let res: { status: number; text: string };
    try {
      res = await send(method, path, headers, body);
    } catch (error) {
      res = { status: 0, text: String(error) };
    }
    result.ms.push(performance.now() - t0);
    result.cases++;
    result.byKind[c.kind] = (result.byKind[c.kind] ?? 0) + 1;
    result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
    const where = `case ${n} (${label}): ${method} ${path.slice(0, 120)}`;
    const ms = result.ms.at(-1)!;
    if (result.slowest.length < SLOWEST_KEPT || ms > result.slowest.at(-1)!.ms) {
      result.slowest = [...result.slowest, { ms, request: `${where}, ${body?.length ?? 0} bytes → ${res.status}` }].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_KEPT);
    }
    if (res.status >= 500 || res.status === 0) result.failures.push(`${where} → ${res.status} ${res.text.slice(0, 300)}`);
    else if (LEAK.test(res.text)) result.failures.push(`${where} → ${res.status} leaks ${res.text.match(LEAK)![0]}: ${res.text.slice(0, 300)}`);
    // A fuzzed delete that went through takes the target's objects away: aim at fresh ones.
    if (method === "DELETE" && res.status < 300) target = await newTarget();
    if ((n + 1) % probeEvery === 0) {
      await probe(n);
      options.progress?.(`${n + 1} of ${options.count}, ${result.failures.length} failures`);
    }
  }
  await probe(cases.length);
  return result;
}

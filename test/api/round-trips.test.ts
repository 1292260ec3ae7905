import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { writeAppend } from "../../src/sessions/history";
import { newKey, newTenant, unique } from "../helpers";
import { contextOfMind, depsOfMind } from "../support/deps";
import { RoundTrips, recordingD1 } from "../support/recording-d1";
import { roundTripWorker } from "../support/round-trip-worker";

// Round trips of a warm request, counted, not timed: every D1 statement or batch is a trip to a
// database in production. A change that adds one to a request below fails here; lower the
// number when a change saves one.

// The directory's tables: a statement naming one of them is a round trip to the directory, but
// for a write's quota guard, which reads the quotas from the mind's row on its own database.
const DIRECTORY_TABLE = /\b"?(mind_keys|minds|accounts|oauth_grants)"?\b/;
const namesDirectory = (sql: string) => DIRECTORY_TABLE.test(sql) && !sql.includes('"quota_guard"');

const HEADER = "X-Edgemind-Bookmark";

/** The Worker, each database binding counting its round trips, with a way to send and to count. */
function countingWorker() {
  const { fetch, trips, on, reset } = roundTripWorker();
  const send = async (method: string, path: string, token: string, body?: unknown) => {
    const headers = new Headers({ Authorization: `Bearer ${token}` });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    const res = await fetch(new Request(`https://edgemind.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    const text = await res.text();
    return { status: res.status, text, bookmark: res.headers.get(HEADER), json: (() => { try { return JSON.parse(text) as Record<string, unknown>; } catch { return null; } })() };
  };
  /** The serial trips to the mind's database, and every trip that named the directory. */
  const counts = (shard: string) => {
    const shardTrips = on(shard)!;
    const directory = [...trips.values()].flatMap((t) => t.all).filter((sqls) => sqls.some(namesDirectory));
    const onShard = shardTrips.all.filter((sqls) => !sqls.some(namesDirectory));
    return { serial: shardTrips.serial, trips: onShard.length, directory: directory.length, starts: shardTrips.starts };
  };
  return { fetch, send, reset, counts };
}

async function shardOf(mindId: string): Promise<string> {
  return (await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<string>("shard"))!;
}

describe("round trips of a warm request", () => {
  const w = countingWorker();
  let key: string;
  let mindId: string;
  let shard: string;
  let sessionId: string;

  beforeAll(async () => {
    const t = await newTenant();
    mindId = t.mind.id;
    key = (await newKey(t.token, t.mind.id)).key;
    shard = await shardOf(t.mind.id);
    // Warm: the key, its mind and a few rows to read.
    for (const content of ["Drinks green tea", "Works on edgemind"]) {
      expect((await w.send("POST", "/memory", key, { category: "fact", key: unique("k").replace(/-/g, "_"), content })).status).toBe(201);
    }
    expect((await w.send("POST", "/notes", key, { text: "likes tea in the morning" })).status).toBe(201);
    const session = await w.send("POST", "/sessions", key, { task_name: unique("task") });
    expect(session.status).toBe(201);
    sessionId = String(session.json!.id);
    expect((await w.send("POST", `/sessions/${sessionId}/messages`, key, { role: "user", content: "hello" })).status).toBe(201);
  });

  /** Sends the request warm and answers what it cost. */
  const measure = async (method: string, path: string, body?: unknown) => {
    w.reset();
    const res = await w.send(method, path, key, body);
    expect(res.status, res.text).toBeLessThan(300);
    return w.counts(shard);
  };

  it("POST /memory is one batch: the quota guard, the history and the embedding mark in it, no bookmark read", async () => {
    const cost = await measure("POST", "/memory", { category: "fact", key: unique("k").replace(/-/g, "_"), content: "Takes the train" });
    expect(cost).toMatchObject({ serial: 1, trips: 1, directory: 0 });
  });

  it("POST /notes is one batch", async () => {
    expect(await measure("POST", "/notes", { text: "prefers trains" })).toMatchObject({ serial: 1, trips: 1, directory: 0 });
  });

  it("POST /sessions/:id/messages makes no round trip of its own: the session's object writes", async () => {
    expect(await measure("POST", `/sessions/${sessionId}/messages`, { role: "user", content: "more" })).toMatchObject({ trips: 0, directory: 0 });
  });

  it("the session's object appends a message in one batch, with nothing read before it", async () => {
    const trips = new RoundTrips();
    const mindContext = await contextOfMind(mindId);
    const deps = await depsOfMind(mindId, { wrap: (d1) => recordingD1(d1, [], trips) });
    const written = await writeAppend(deps, { mindId, sessionId }, { role: "user", content: "counted" }, {
      clearEphemeral: true,
      historyCap: 200,
      agentFilter: null,
      settings: mindContext.mind.settings,
    });
    expect(written.message?.content).toBe("counted");
    expect({ serial: trips.serial, trips: trips.all.length }).toEqual({ serial: 1, trips: 1 });
  });

  // The query's terms are looked up in the index's vocabulary first, then the rows are read.
  it("GET /memory/search is two serial round trips", async () => {
    expect(await measure("GET", "/memory/search?q=tea")).toMatchObject({ serial: 2, directory: 0 });
  });

  // Rescoring, the question's time and the newer statement first are worked out in code, not asked of D1.
  it("GET /memory/search of a long question asking when, naming a time back from now, is still two serial round trips", async () => {
    const q = encodeURIComponent("How many weeks ago did I start drinking green tea two weeks ago, and which came first, tea or the train?");
    expect(await measure("GET", `/memory/search?q=${q}&limit=50`)).toMatchObject({ serial: 2, trips: 2, directory: 0 });
  });

  it("GET /memory/recall is one round trip", async () => {
    expect(await measure("GET", "/memory/recall")).toMatchObject({ serial: RECALL_SERIAL_TRIPS, directory: 0 });
  });

  it("GET /cold is one serial round trip", async () => {
    expect(await measure("GET", "/cold")).toMatchObject({ serial: COLD_SERIAL_TRIPS, directory: 0 });
  });

  it("GET /sessions/:id/context stays within its serial round trips", async () => {
    expect(await measure("GET", `/sessions/${sessionId}/context`)).toMatchObject({ serial: CONTEXT_SERIAL_TRIPS, directory: 0 });
  });

  it("MCP memory_search is two serial round trips, as GET /memory/search", async () => {
    const transport = new StreamableHTTPClientTransport(new URL("https://edgemind.test/mcp"), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
      fetch: (url, init) => w.fetch(new Request(url, init)),
    });
    const client = new Client({ name: "round-trips", version: "1.0.0" });
    await client.connect(transport);
    w.reset();
    const result = await client.callTool({ name: "memory_search", arguments: { q: "tea" } });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(w.counts(shard)).toMatchObject({ serial: 2, directory: 0 });
    await client.close();
  });

  it("over MCP a reading tool starts at the caller's known position or any replica, a writing tool at the primary", async () => {
    // A new key: no position of its own is known yet, so where each call starts is the tool's choice.
    const t = await newTenant();
    const fresh = (await newKey(t.token, t.mind.id)).key;
    const at = await shardOf(t.mind.id);
    const transport = new StreamableHTTPClientTransport(new URL("https://edgemind.test/mcp"), {
      requestInit: { headers: { Authorization: `Bearer ${fresh}` } },
      fetch: (url, init) => w.fetch(new Request(url, init)),
    });
    const client = new Client({ name: "round-trips", version: "1.0.0" });
    await client.connect(transport);
    w.reset();
    expect((await client.callTool({ name: "memory_search", arguments: { q: "tea" } })).isError).toBeFalsy();
    expect(w.counts(at).starts).toEqual(["first-unconstrained"]);
    // A write starts at the primary even with a position known, then the next read starts from it.
    w.reset();
    expect((await client.callTool({ name: "save_memory_note", arguments: { text: "Likes green tea" } })).isError).toBeFalsy();
    expect(w.counts(at).starts).toEqual(["first-primary"]);
    w.reset();
    expect((await client.callTool({ name: "memory_search", arguments: { q: "tea" } })).isError).toBeFalsy();
    expect(w.counts(at).starts).not.toEqual(["first-unconstrained"]);
    await client.close();
  });

  it("a caller that sends no bookmark reads from where its own last write left it", async () => {
    const written = await w.send("POST", "/memory", key, { category: "fact", key: unique("k").replace(/-/g, "_"), content: "Reads its writes" });
    w.reset();
    const read = await w.send("GET", `/memory/${String(written.json!.id)}`, key);
    expect(read.status).toBe(200);
    expect(w.counts(shard).starts).toEqual([written.bookmark!.split(":")[2]]);
  });
});

const CONTEXT_SERIAL_TRIPS = 2;
const RECALL_SERIAL_TRIPS = 1;
const COLD_SERIAL_TRIPS = 1;

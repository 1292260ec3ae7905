// A refused body must leave its connection serving the next request: checked against a real
// `wrangler dev` (fresh local D1 on a free port), over one kept-alive connection.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import path from "node:path";
import { after, before, test } from "node:test";
import { type LocalWorker, root, startLocalWorker } from "../../scripts/local.mjs";

const ADMIN_TOKEN = randomBytes(24).toString("base64url");
const LARGE = Buffer.alloc(2 * 1024 * 1024, "a");
const SMALL = Buffer.alloc(32 * 1024, "a");

let dev: LocalWorker | undefined;
let state: string;
let base: string;

async function api<T>(method: string, route: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${base}${route}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${method} ${route}: ${res.status}`);
  return (await res.json()) as T;
}

interface Sent {
  status: number;
  reusedSocket: boolean;
}

/** One request on the agent's single socket; a request the server never answers fails after 15 s. */
function send(agent: Agent, method: string, route: string, headers: Record<string, string | number>, body?: Buffer, chunked = false): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${route}`, { method, agent, headers, timeout: 15_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reusedSocket: req.reusedSocket }));
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${route}: no answer on the kept-alive connection`)));
    req.on("error", reject);
    if (body && chunked) {
      // Two writes without a length: Node sends them as chunks.
      req.write(body.subarray(0, body.length / 2));
      req.end(body.subarray(body.length / 2));
    } else {
      req.end(body);
    }
  });
}

before(async () => {
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  state = mkdtempSync(path.join(root, ".tmp", "refused-bodies-"));
  dev = await startLocalWorker({ persistTo: state, vars: { ADMIN_TOKEN, JWT_SECRET: randomBytes(24).toString("base64url"), LLM_PROVIDER: "none" } });
  base = dev.base;
});

after(() => {
  dev?.stop();
  rmSync(state, { recursive: true, force: true });
});

test("every refused body, with a Content-Length or chunked, leaves its connection answering the next request", { timeout: 120_000 }, async () => {
  const { token } = await api<{ token: string }>("POST", "/auth/token", ADMIN_TOKEN, { account: "refused-bodies" });
  const mind = await api<{ id: string }>("POST", "/minds", token, { name: "Not empty" });
  await api("POST", "/memory", token, { category: "project", key: "kept", content: "Already here" }, { "X-Mind-Id": mind.id });

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const auth = { Authorization: `Bearer ${token}` };
  const refusals: [string, string, Record<string, string>, Buffer, boolean, number][] = [
    ["import into a mind that is not empty, with a Content-Length", `/minds/${mind.id}/import`, auth, LARGE, false, 409],
    ["import into a mind that is not empty, chunked", `/minds/${mind.id}/import`, auth, LARGE, true, 409],
    ["import without credentials", `/minds/${mind.id}/import`, {}, LARGE, false, 401],
    ["an ordinary route over its bound", "/memory", auth, LARGE, false, 413],
    ["an ordinary route over its bound, chunked", "/memory", auth, LARGE, true, 413],
    ["no route", "/nowhere", auth, SMALL, false, 404],
    ["a wrong key", "/memory", { Authorization: "Bearer emk_nobody.wrong" }, SMALL, false, 401],
  ];
  try {
    assert.equal((await send(agent, "GET", "/health", {})).status, 200);
    for (const [what, route, headers, body, chunked, status] of refusals) {
      const refused = await send(agent, "POST", route, { ...headers, "Content-Type": "application/x-ndjson" }, body, chunked);
      assert.equal(refused.status, status, what);
      const next = await send(agent, "GET", "/health", {});
      assert.deepEqual(next, { status: 200, reusedSocket: true }, `the request after: ${what}`);
    }
  } finally {
    agent.destroy();
  }
});

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { ADMIN_TOKEN, type CallResult, newKey, newTenant, unique } from "../helpers";
import { dataOf } from "../support/shards";

// The suite runs with the limits raised (vitest.config.ts); here the Worker gets low ones. A
// window of years keeps a test from straddling two windows.
const LONG_WINDOW = { RATE_LIMIT_WINDOW_SECONDS: "100000000" };

interface Request {
  token?: string;
  ip: string;
  mind?: string;
  body?: unknown;
  /** Sent as is, with `headers` saying what it is. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One request to the Worker with some vars changed, from a given client address. */
async function callWith(vars: Record<string, unknown>, method: string, path: string, request: Request): Promise<CallResult> {
  const headers = new Headers({ "CF-Connecting-IP": request.ip });
  if (request.token) headers.set("Authorization", `Bearer ${request.token}`);
  if (request.mind) headers.set("X-Mind-Id", request.mind);
  if (request.body !== undefined) headers.set("Content-Type", "application/json");
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);
  const body = request.body === undefined ? request.rawBody : JSON.stringify(request.body);
  const ctx = createExecutionContext();
  const response = await worker.fetch(
    new globalThis.Request(`https://edgemind.test${path}`, { method, headers, body }),
    { ...env, ...LONG_WINDOW, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text.startsWith("{") ? JSON.parse(text) : null };
}

/** Writes per key limited to 3 (vitest.config.ts's TINY_RATE_LIMIT in place of wrangler.toml's WRITES_PER_KEY). */
const TINY_WRITES_PER_KEY = { RATE_LIMIT_REQUESTS: "on", WRITES_PER_KEY: env.TINY_RATE_LIMIT };

const memory = (n: number) => ({ category: "fact", key: unique(`k${n}`).replace(/-/g, "_"), content: `fact ${n}` });
const address = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${unique("ip")}`;

async function memoryCount(mindId: string): Promise<number> {
  const row = await (await dataOf(mindId)).prepare("select count(*) as n from memories where mind_id = ?").bind(mindId).first<{ n: number }>();
  return row!.n;
}

/** An MCP tools/list call with the given bearer token. */
const mcp = (vars: Record<string, string>, token: string | undefined, ip: string) =>
  callWith(vars, "POST", "/mcp", {
    token,
    ip,
    rawBody: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
  });

function expectLimited(res: CallResult, limitVar: string, limit?: number) {
  expect(res.status, res.text).toBe(429);
  expect(res.json.error.code).toBe("rate_limited");
  expect(res.json.error.message).toContain(limitVar);
  if (limit !== undefined) expect(res.json.error.message).toContain(`${limit} `);
  const retryAfter = Number(res.headers.get("Retry-After"));
  expect(retryAfter).toBeGreaterThan(0);
}

describe("rate limits", () => {
  it("refuses a key's writes past its limit with 429 and Retry-After, writes nothing, and leaves other keys alone", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const ip = address();
    for (let n = 0; n < 3; n += 1) {
      expect((await callWith(TINY_WRITES_PER_KEY, "POST", "/memory", { token: key, ip, body: memory(n) })).status).toBe(201);
    }
    expectLimited(await callWith(TINY_WRITES_PER_KEY, "POST", "/memory", { token: key, ip, body: memory(3) }), "WRITES_PER_KEY");
    expectLimited(await callWith(TINY_WRITES_PER_KEY, "DELETE", "/memory/anything", { token: key, ip: address() }), "WRITES_PER_KEY");
    expect(await memoryCount(t.mind.id)).toBe(3);
    const other = await newKey(t.token, t.mind.id);
    expect((await callWith(TINY_WRITES_PER_KEY, "POST", "/memory", { token: other.key, ip, body: memory(4) })).status).toBe(201);
    // A human's writes count against the account.
    for (let n = 0; n < 3; n += 1) {
      expect((await callWith(TINY_WRITES_PER_KEY, "POST", "/memory", { token: t.token, mind: t.mind.id, ip, body: memory(n) })).status).toBe(201);
    }
    expectLimited(await callWith(TINY_WRITES_PER_KEY, "POST", "/memory", { token: t.token, mind: t.mind.id, ip, body: memory(9) }), "WRITES_PER_KEY");
  });

  it("refuses a key's reads past its limit with 429 and Retry-After, so a valid key cannot flood a shard with GETs", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const vars = { RATE_LIMIT_REQUESTS: "on", READS_PER_KEY: env.TINY_RATE_LIMIT };
    const ip = address();
    for (let n = 0; n < 3; n += 1) expect((await callWith(vars, "GET", "/memory", { token: key, ip })).status).toBe(200);
    expectLimited(await callWith(vars, "GET", "/memory", { token: key, ip: address() }), "READS_PER_KEY");
    // Writes are counted apart.
    expect((await callWith(vars, "POST", "/memory", { token: key, ip, body: memory(0) })).status).toBe(201);
  });

  it("refuses requests from one client address past its limit, whichever key they use", async () => {
    const t = await newTenant();
    const keys = [(await newKey(t.token, t.mind.id)).key, (await newKey(t.token, t.mind.id)).key];
    const vars = { RATE_LIMIT_REQUESTS: "on", WRITES_PER_IP: env.TINY_RATE_LIMIT, READS_PER_IP: env.TINY_RATE_LIMIT };
    const ip = address();
    for (const [n, token] of [keys[0], keys[1], keys[1]].entries()) {
      expect((await callWith(vars, "POST", "/memory", { token, ip, body: memory(n) })).status).toBe(201);
    }
    expectLimited(await callWith(vars, "POST", "/memory", { token: keys[0], ip, body: memory(3) }), "WRITES_PER_IP");
    expect((await callWith(vars, "POST", "/memory", { token: keys[1], ip: address(), body: memory(4) })).status).toBe(201);
    expect(await memoryCount(t.mind.id)).toBe(4);
  });

  it("answers 429 to failed authentications from one address past its limit, and still accepts a valid credential from it", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3" };
    const ip = address();
    for (const token of [undefined, "not-a-token", "emk_unknown.secret"]) {
      expect((await callWith(vars, "GET", "/memory", { token, ip, mind: t.mind.id })).status).toBe(401);
    }
    expectLimited(await callWith(vars, "GET", "/memory", { token: "still-wrong", ip, mind: t.mind.id }), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
    expectLimited(await callWith(vars, "POST", "/auth/token", { token: "wrong-admin-token", ip, body: { account: "x" } }), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
    // One bad client behind a shared address locks no one else out: good credentials from it work.
    expect((await callWith(vars, "GET", "/memory", { token: t.token, ip, mind: t.mind.id })).status).toBe(200);
    expect((await callWith(vars, "GET", "/memory", { token: key, ip })).status).toBe(200);
    expect((await callWith(vars, "POST", "/auth/token", { token: ADMIN_TOKEN, ip, body: { account: unique("a") } })).status).toBe(200);
    // And the address's next failure is still refused.
    expectLimited(await callWith(vars, "GET", "/memory", { token: "wrong-again", ip, mind: t.mind.id }), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
  });

  it("counts wrong Telegram webhook secrets as failed authentications of the address: 429 past the limit", async () => {
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3" };
    const ip = address();
    const update = { update_id: 1, message: { message_id: 1, chat: { id: 1, type: "private" }, text: "hi" } };
    const webhook = (secret: string) => callWith(vars, "POST", "/telegram/webhook", { ip, body: update, headers: { "X-Telegram-Bot-Api-Secret-Token": secret } });
    for (const secret of ["wrong-secret-1", "wrong-secret-2", "wrong-secret-3"]) expect((await webhook(secret)).status).toBe(401);
    expectLimited(await webhook("wrong-secret-4"), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
    // The address's failures are the API's too.
    expectLimited(await callWith(vars, "GET", "/memory", { token: "emk_unknown.secret", ip }), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
  });

  it("failed secrets with a key's prefix never lock the key out: past the limit they answer 429, the real secret still works", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_KEY: "2" };
    const prefix = key.split(".")[0];
    // The prefix is not secret (GET /minds/:id/keys shows it): anyone can send it with guesses.
    expect((await callWith(vars, "GET", "/memory", { token: `${prefix}.guess-1`, ip: address() })).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: `${prefix}.guess-2`, ip: address() })).status).toBe(401);
    expectLimited(await callWith(vars, "GET", "/memory", { token: `${prefix}.guess-3`, ip: address() }), "RATE_LIMIT_AUTH_FAILURES_PER_KEY", 2);
    for (let n = 0; n < 5; n += 1) expectLimited(await callWith(vars, "GET", "/memory", { token: `${prefix}.guess-${4 + n}`, ip: address() }), "RATE_LIMIT_AUTH_FAILURES_PER_KEY", 2);
    const real = await callWith(vars, "GET", "/memory", { token: key, ip: address() });
    expect(real.status, real.text).toBe(200);
    expect((await mcp(vars, key, address())).status).toBe(200);
  });

  it("one credential that keeps failing is refused at once, from any address, without touching others", async () => {
    const t = await newTenant();
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_KEY: "2" };
    const wrong = "not-a-valid-token";
    expect((await callWith(vars, "GET", "/memory", { token: wrong, ip: address(), mind: t.mind.id })).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: wrong, ip: address(), mind: t.mind.id })).status).toBe(401);
    expectLimited(await callWith(vars, "GET", "/memory", { token: wrong, ip: address(), mind: t.mind.id }), "one credential (RATE_LIMIT_AUTH_FAILURES_PER_KEY)", 2);
    expectLimited(await callWith(vars, "GET", "/memory", { token: wrong, ip: address(), mind: t.mind.id }), "one credential (RATE_LIMIT_AUTH_FAILURES_PER_KEY)", 2);
    // Another wrong credential is only told it is wrong; the person's own works.
    expect((await callWith(vars, "GET", "/memory", { token: "another-wrong-one", ip: address(), mind: t.mind.id })).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: t.token, ip: address(), mind: t.mind.id })).status).toBe(200);
  });

  it("a valid credential refused an operator's route is not a failed authentication: it locks neither itself nor its address out", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3", RATE_LIMIT_AUTH_FAILURES_PER_KEY: "2" };
    const ip = address();
    for (let n = 0; n < 5; n += 1) {
      for (const token of [t.token, key]) {
        const refused = await callWith(vars, "GET", "/jobs", { token, ip });
        expect(refused.status, refused.text).toBe(403);
        expect(refused.json.error.code).toBe("forbidden");
      }
    }
    expect((await callWith(vars, "POST", "/auth/token", { token: t.token, ip, body: { account: "x" } })).status).toBe(403);
    expect((await callWith(vars, "GET", "/minds", { token: t.token, ip })).status).toBe(200);
    expect((await callWith(vars, "GET", "/memory", { token: key, ip })).status).toBe(200);
    // A credential that is not one still counts, at the operator's routes too.
    for (let n = 0; n < 3; n += 1) expect((await callWith(vars, "GET", "/jobs", { token: `not-admin-${n}`, ip })).status).toBe(401);
    expectLimited(await callWith(vars, "GET", "/jobs", { token: "not-admin-3", ip }), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
  });

  it("counts failed authentications on /mcp with the API's, per address and per key, and never refuses a valid key for them", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3", RATE_LIMIT_AUTH_FAILURES_PER_KEY: "2" };
    const ip = address();
    for (const token of [undefined, "not-a-token"]) expect((await mcp(vars, token, ip)).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: "wrong", ip, mind: t.mind.id })).status).toBe(401);
    expectLimited(await mcp(vars, "still-wrong", ip), "RATE_LIMIT_AUTH_FAILURES_PER_IP", 3);
    // The address's good credentials still work, on /mcp and the API alike.
    const good = await mcp(vars, key, ip);
    expect(good.status, good.text).toBe(200);
    expect(good.json.result.tools.length).toBeGreaterThan(0);
    expect((await callWith(vars, "GET", "/memory", { token: t.token, ip, mind: t.mind.id })).status).toBe(200);

    const prefix = key.split(".")[0];
    expect((await mcp(vars, `${prefix}.wrong-1`, address())).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: `${prefix}.wrong-2`, ip: address() })).status).toBe(401);
    expectLimited(await mcp(vars, `${prefix}.wrong-3`, address()), "RATE_LIMIT_AUTH_FAILURES_PER_KEY", 2);
    expect((await mcp(vars, key, address())).status).toBe(200);
  });

  it("counts failed web UI logins, by one-time link or token, with the API's failures of the address; a good login still gets in", async () => {
    const t = await newTenant();
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3" };
    const ip = address();
    const login = (form: Record<string, string>, from = ip) =>
      callWith(vars, "POST", "/ui/login", { ip: from, rawBody: new URLSearchParams(form).toString(), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://edgemind.test" } });
    expect((await login({ token: "not-a-login-link" })).status).toBe(401);
    expect((await login({ jwt: "not-a-jwt" })).status).toBe(401);
    expect((await callWith(vars, "GET", "/memory", { token: "wrong", ip, mind: t.mind.id })).status).toBe(401);
    const refused = await login({ token: "another-guess" });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("RATE_LIMIT_AUTH_FAILURES_PER_IP");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A person behind the same address logs in with a good token.
    expect((await login({ jwt: t.token })).status).toBe(303);
    expect((await callWith(vars, "GET", "/memory", { token: t.token, ip, mind: t.mind.id })).status).toBe(200);
  });

  it("takes the client address from CF-Connecting-IP, except on a loopback host, where every request is this machine's", async () => {
    const t = await newTenant();
    const vars = { RATE_LIMIT_AUTH_FAILURES_PER_IP: "2" };
    const local = async (ip: string) => {
      const ctx = createExecutionContext();
      const headers = { "CF-Connecting-IP": ip, Authorization: "Bearer wrong", "X-Mind-Id": t.mind.id };
      const res = await worker.fetch(new globalThis.Request("http://127.0.0.1:8787/memory", { headers }), { ...env, ...LONG_WINDOW, ...vars }, ctx);
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    // A client cannot spread its failures over made-up addresses on a local server.
    expect(await local(address())).toBe(401);
    expect(await local(address())).toBe(401);
    expect(await local(address())).toBe(429);
  });

  it("RATE_LIMIT_REQUESTS=off counts no request", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const ip = address();
    for (let n = 0; n < 4; n += 1) {
      const res = await callWith({ ...TINY_WRITES_PER_KEY, RATE_LIMIT_REQUESTS: "off" }, "POST", "/memory", { token: key, ip, body: memory(n) });
      expect(res.status).toBe(201);
    }
  });
});

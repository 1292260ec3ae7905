import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CLIENT_NAME_MAX_CHARS, REDIRECT_URIS_MAX, UNAUTHORIZED_CLIENT_TTL_SECONDS, URI_MAX_CHARS } from "../../src/auth/client-registration";
import { OAUTH_MAX_BODY_BYTES } from "../../src/auth/oauth";
import worker from "../../src/index";
import { unique } from "../helpers";

const GOOD = { client_name: "Assistant", redirect_uris: ["https://assistant.example/callback"], token_endpoint_auth_method: "none" };

/** A registration from a given address, with some vars changed. */
async function register(body: unknown, options: { ip?: string; vars?: Record<string, string>; raw?: string } = {}) {
  const headers = new Headers({ "Content-Type": "application/json", "CF-Connecting-IP": options.ip ?? unique("203.0.113.9") });
  const ctx = createExecutionContext();
  const init = { method: "POST", headers, body: options.raw ?? JSON.stringify(body) };
  const response = await worker.fetch(new globalThis.Request("https://edgemind.test/oauth/register", init), { ...env, RATE_LIMIT_WINDOW_SECONDS: "100000000", ...options.vars }, ctx);
  await waitOnExecutionContext(ctx);
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) };
}

const clientsStored = async (clientId: string) => (await env.OAUTH_KV.list({ prefix: `client:${clientId}` })).keys;

describe("dynamic client registration is bounded", () => {
  it("refuses every oversized field, wildcard and unsafe redirect, naming the rule, and stores nothing", async () => {
    const long = (n: number) => "x".repeat(n);
    const cases: [string, Record<string, unknown>, number, string, RegExp][] = [
      ["a long name", { ...GOOD, client_name: long(CLIENT_NAME_MAX_CHARS + 1) }, 400, "invalid_client_metadata", /client_name .* at most 100/],
      ["a name in another language", { ...GOOD, "client_name#ja": long(CLIENT_NAME_MAX_CHARS + 1) }, 400, "invalid_client_metadata", /client_name#ja/],
      ["too many redirect URIs", { ...GOOD, redirect_uris: Array.from({ length: REDIRECT_URIS_MAX + 1 }, (_, i) => `https://a.example/${i}`) }, 400, "invalid_redirect_uri", /1 to 5 URIs/],
      ["a long redirect URI", { ...GOOD, redirect_uris: [`https://a.example/${long(URI_MAX_CHARS)}`] }, 400, "invalid_redirect_uri", /at most 512 characters/],
      ["a wildcard host", { ...GOOD, redirect_uris: ["https://*.evil.com/cb"] }, 400, "invalid_redirect_uri", /wildcard/],
      ["a wildcard path", { ...GOOD, redirect_uris: ["https://evil.com/*"] }, 400, "invalid_redirect_uri", /wildcard/],
            // The provider's own checks come first for these.
      ["plain http elsewhere than loopback", { ...GOOD, redirect_uris: ["http://evil.com/cb"] }, 400, "invalid_client_metadata", /https, or http on a loopback host/],
      ["another scheme", { ...GOOD, redirect_uris: ["javascript:alert(1)"] }, 400, "invalid_client_metadata", /Invalid redirect URI/],
      ["credentials in the URI", { ...GOOD, redirect_uris: ["https://user:pw@a.example/cb"] }, 400, "invalid_client_metadata", /Invalid redirect URI/],
      ["a private-use scheme", { ...GOOD, redirect_uris: ["com.example.app:/callback"] }, 400, "invalid_client_metadata", /redirect URI/i],
      ["a long logo URI", { ...GOOD, logo_uri: `https://a.example/${long(URI_MAX_CHARS)}` }, 400, "invalid_client_metadata", /logo_uri/],
      ["a wildcard client URI", { ...GOOD, client_uri: "https://*.a.example" }, 400, "invalid_client_metadata", /client_uri .*wildcard/],
      ["many contacts", { ...GOOD, contacts: Array.from({ length: 6 }, (_, i) => `c${i}@a.example`) }, 400, "invalid_client_metadata", /contacts/],
      ["a large unknown field", { ...GOOD, extra: long(2_000) }, 400, "invalid_client_metadata", /extra is at most/],
      ["a 60 KB redirect URI", { ...GOOD, redirect_uris: [`https://a.example/${long(60_000)}`] }, 413, "invalid_request", /larger than 16384 bytes/],
      ["a 1 MB name", { ...GOOD, client_name: long(1024 * 1024) }, 413, "invalid_request", /larger than 16384 bytes/],
      ["5,000 redirect URIs", { ...GOOD, redirect_uris: Array.from({ length: 5000 }, (_, i) => `https://a.example/${i}`) }, 413, "invalid_request", /larger than/],
    ];
    const before = (await env.OAUTH_KV.list({ prefix: "client:" })).keys.length;
    for (const [name, body, status, error, description] of cases) {
      const res = await register(body);
      expect(res.status, name).toBe(status);
      expect(res.json.error, name).toBe(error);
      expect(res.json.error_description, name).toMatch(description);
    }
    expect((await env.OAUTH_KV.list({ prefix: "client:" })).keys.length).toBe(before);
    expect(OAUTH_MAX_BODY_BYTES).toBe(16384);
  });

  it("accepts https and loopback http redirects, and a registration that is never authorized expires within a day", async () => {
    const res = await register({ ...GOOD, redirect_uris: ["https://assistant.example/cb", "http://127.0.0.1:33418/callback", "http://localhost:8080/cb", "http://[::1]:9/cb"] });
    expect(res.status).toBe(201);
    const [stored] = await clientsStored(res.json.client_id);
    const now = Date.now() / 1000;
    expect(stored!.expiration).toBeGreaterThan(now + UNAUTHORIZED_CLIENT_TTL_SECONDS - 120);
    expect(stored!.expiration).toBeLessThan(now + UNAUTHORIZED_CLIENT_TTL_SECONDS + 120);
  });

  it("limits registrations per client address, with Retry-After; other addresses go on", async () => {
    const vars = { RATE_LIMIT_REGISTRATIONS_PER_IP: "3" };
    const ip = unique("198.51.100.7");
    for (let n = 0; n < 3; n++) expect((await register(GOOD, { ip, vars })).status).toBe(201);
    const refused = await register(GOOD, { ip, vars });
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "rate_limited", message: expect.stringContaining("RATE_LIMIT_REGISTRATIONS_PER_IP") });
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await register(GOOD, { ip: unique("198.51.100.8"), vars })).status).toBe(201);
  });
});

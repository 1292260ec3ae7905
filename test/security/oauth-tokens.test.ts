import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { call, newTenant, unique } from "../helpers";
import { browser, csrfOf } from "../ui/ui-helpers";

const REDIRECT = "https://assistant.example/callback";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

/** A client registered by dynamic registration: public (`none`) or, by default, with a secret. */
async function registerClient(authMethod?: "none") {
  const body = { client_name: unique("Assistant"), redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], ...(authMethod ? { token_endpoint_auth_method: authMethod } : {}) };
  const res = await call("POST", "/oauth/register", { body, headers: { "CF-Connecting-IP": unique("192.0.2.1") } });
  expect(res.status).toBe(201);
  return res.json as { client_id: string; client_secret?: string };
}

const basic = (client: { client_id: string; client_secret?: string }) => ({ Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}` });

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A signed-in person's browser opening the consent page for these authorization parameters. */
async function openConsent(token: string, params: Record<string, string>) {
  const b = browser();
  expect((await b.post("/ui/login", { jwt: token })).status).toBe(303);
  const query = new URLSearchParams({ response_type: "code", redirect_uri: REDIRECT, state: "st-1", ...params });
  return { browser: b, page: await b.get(`/ui/oauth/authorize?${query}`) };
}

/** Consent given on a mind, for a request with a PKCE S256 challenge: the code and its verifier. */
async function authorizedCode(tenant: { token: string; mind: { id: string } }, clientId: string) {
  const verifier = unique("verifier-0123456789-0123456789-0123456789");
  const { browser: b, page } = await openConsent(tenant.token, { client_id: clientId, code_challenge: await s256(verifier), code_challenge_method: "S256" });
  expect(page.status).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(page.text)![1]!;
  const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(page.text), handle, mind: tenant.mind.id, agent: "", decision: "allow" });
  expect(answer.status).toBe(302);
  return { code: new URL(answer.headers.get("Location")!).searchParams.get("code")!, verifier };
}

const tokenRequest = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call("POST", "/oauth/token", { rawBody: new URLSearchParams(fields).toString(), headers: { ...FORM, ...headers } });

const refresh = (clientId: string, refreshToken: string) => tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });

const listTools = (token: string) =>
  call("POST", "/mcp", { token, headers: { Accept: "application/json, text/event-stream" }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });

/** A public client authorized on a fresh mind, with its first tokens. */
async function connectedClient() {
  const tenant = await newTenant();
  const client = await registerClient("none");
  const { code, verifier } = await authorizedCode(tenant, client.client_id);
  const tokens = await tokenRequest({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
  expect(tokens.status).toBe(200);
  return { tenant, clientId: client.client_id, accessToken: tokens.json.access_token as string, refreshToken: tokens.json.refresh_token as string };
}

describe("PKCE S256 is required of every client", () => {
  it("refuses an authorization request without a challenge or with plain, from a client with a secret too, back to the client as invalid_request", async () => {
    const tenant = await newTenant();
    const confidential = await registerClient();
    expect(confidential.client_secret).toBeTruthy();
    const cases: [string, Record<string, string>, RegExp][] = [
      ["a client with a secret, no challenge", { client_id: confidential.client_id }, /PKCE is required/],
      ["a client with a secret, plain", { client_id: confidential.client_id, code_challenge: "a".repeat(43), code_challenge_method: "plain" }, /S256/],
      ["a public client, no challenge", { client_id: (await registerClient("none")).client_id }, /PKCE/],
    ];
    for (const [name, params, description] of cases) {
      const { page } = await openConsent(tenant.token, params);
      expect(page.status, name).toBe(302);
      const back = new URL(page.headers.get("Location")!);
      expect(`${back.origin}${back.pathname}`, name).toBe(REDIRECT);
      expect(back.searchParams.get("error"), name).toBe("invalid_request");
      expect(back.searchParams.get("error_description"), name).toMatch(description);
      expect(back.searchParams.get("state"), name).toBe("st-1");
      expect(back.searchParams.get("code"), name).toBeNull();
    }
  });

  it("lets a client with a secret in with S256 and its verifier, and refuses its exchange without the verifier", async () => {
    const tenant = await newTenant();
    const client = await registerClient();
    const first = await authorizedCode(tenant, client.client_id);
    const withoutVerifier = await tokenRequest({ grant_type: "authorization_code", code: first.code, redirect_uri: REDIRECT }, basic(client));
    expect(withoutVerifier.status).toBe(400);
    expect(withoutVerifier.json.access_token).toBeUndefined();
    const second = await authorizedCode(tenant, client.client_id);
    const tokens = await tokenRequest({ grant_type: "authorization_code", code: second.code, code_verifier: second.verifier, redirect_uri: REDIRECT }, basic(client));
    expect(tokens.status).toBe(200);
    expect((await listTools(tokens.json.access_token)).status).toBe(200);
  });
});

describe("refresh tokens rotate strictly", () => {
  it("refuses a refresh token already exchanged, and its reuse revokes the grant: the newer refresh token and every access token stop too", async () => {
    const { tenant, clientId, accessToken, refreshToken } = await connectedClient();
    const first = await refresh(clientId, refreshToken);
    expect(first.status).toBe(200);
    expect((await listTools(first.json.access_token)).status).toBe(200);

    const replayed = await refresh(clientId, refreshToken);
    expect(replayed.status).toBe(400);
    expect(replayed.json).toMatchObject({ error: "invalid_grant", error_description: expect.stringMatching(/already exchanged/) });
    expect(replayed.json.access_token).toBeUndefined();

    const newer = await refresh(clientId, first.json.refresh_token);
    expect(newer.status).toBe(400);
    expect(newer.json.error).toBe("invalid_grant");
    expect((await refresh(clientId, refreshToken)).status).toBe(400);
    for (const token of [accessToken, first.json.access_token]) expect((await listTools(token)).status).toBe(401);
    const record = await env.DB.prepare("SELECT revoked_at FROM oauth_grants WHERE account_id = ?").bind(tenant.accountId).first<{ revoked_at: string | null }>();
    expect(record?.revoked_at).toBeTruthy();
  });

  it("keeps a chain of refreshes working when no token is reused", async () => {
    const { clientId, refreshToken } = await connectedClient();
    let current = refreshToken;
    for (let n = 0; n < 3; n++) {
      const next = await refresh(clientId, current);
      expect(next.status, `refresh ${n + 1}`).toBe(200);
      expect(next.json.refresh_token).not.toBe(current);
      expect((await listTools(next.json.access_token)).status).toBe(200);
      current = next.json.refresh_token;
    }
  });
});

/** Whether the grant a client was given is revoked: its record in the directory says so. */
async function grantRevoked(accountId: string): Promise<boolean> {
  const record = await env.DB.prepare("SELECT revoked_at FROM oauth_grants WHERE account_id = ? ORDER BY created_at DESC").bind(accountId).first<{ revoked_at: string | null }>();
  return record?.revoked_at != null;
}

// Rounds of each race here; the bench's `probe` part runs 20 of each against `wrangler dev`.
const ROUNDS = 4;

/**
 * KV as production reads it: each read takes a while (a round trip to a central store), which
 * is when a second request can read what the first is about to change. The Worker's requests in
 * a race see this store; a grant's object keeps the runtime's own.
 */
const slowStore = new Proxy(env.OAUTH_KV, {
  get(target, prop) {
    const value: unknown = Reflect.get(target, prop, target);
    if (typeof value !== "function") return value;
    if (prop !== "get") return (value as (...a: unknown[]) => unknown).bind(target);
    return async (...args: unknown[]) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return (value as (...a: unknown[]) => unknown).apply(target, args);
    };
  },
});

/** A token request as one of a race sends it: through the Worker, its store slow. */
async function racing(fields: Record<string, string>): Promise<{ status: number; json: any }> {
  const request = new Request("https://edgemind.test/oauth/token", { method: "POST", headers: FORM, body: new URLSearchParams(fields).toString() });
  const ctx = createExecutionContext();
  const res = await worker.fetch!(request as Parameters<NonNullable<typeof worker.fetch>>[0], { ...env, OAUTH_KV: slowStore }, ctx);
  const json: unknown = await res.json().catch(() => null);
  await waitOnExecutionContext(ctx);
  return { status: res.status, json };
}

describe("a grant's state changes have one winner", () => {
  for (const parallel of [2, 10]) {
    it(`${parallel} refreshes at once with one refresh token: one answers 200, and the reuse revokes the grant with every token, the winner's too`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { tenant, clientId, accessToken, refreshToken } = await connectedClient();
        const answers = await Promise.all(Array.from({ length: parallel }, () => racing({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId })));
        const winners = answers.filter((a) => a.status === 200);
        expect(winners, `round ${round}`).toHaveLength(1);
        for (const lost of answers.filter((a) => a.status !== 200)) expect(lost.json.error).toBe("invalid_grant");
        expect(await grantRevoked(tenant.accountId)).toBe(true);
        for (const token of [accessToken, winners[0]!.json.access_token]) expect((await listTools(token)).status).toBe(401);
        expect((await refresh(clientId, winners[0]!.json.refresh_token)).status).toBe(400);
      }
    }, 60_000);

    it(`${parallel} exchanges at once of one authorization code: one answers 200, and the second exchange revokes what the first issued`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const tenant = await newTenant();
        const client = await registerClient("none");
        const { code, verifier } = await authorizedCode(tenant, client.client_id);
        const exchange = () => racing({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id });
        const answers = await Promise.all(Array.from({ length: parallel }, exchange));
        const winners = answers.filter((a) => a.status === 200);
        expect(winners, `round ${round}`).toHaveLength(1);
        expect(await grantRevoked(tenant.accountId)).toBe(true);
        expect((await listTools(winners[0]!.json.access_token)).status).toBe(401);
        expect((await refresh(client.client_id, winners[0]!.json.refresh_token)).status).toBe(400);
      }
    }, 60_000);
  }

  it("remembers every refresh token it spent: after three rotations the first spent one, presented again, revokes the grant", async () => {
    const { tenant, clientId, refreshToken } = await connectedClient();
    const chain = [refreshToken];
    let access = "";
    for (let n = 0; n < 3; n++) {
      const next = await refresh(clientId, chain.at(-1)!);
      expect(next.status).toBe(200);
      chain.push(next.json.refresh_token);
      access = next.json.access_token;
    }
    expect((await listTools(access)).status).toBe(200);
    const replayed = await refresh(clientId, chain[1]!);
    expect(replayed.status).toBe(400);
    expect(replayed.json.error_description).toMatch(/already exchanged/);
    expect(await grantRevoked(tenant.accountId)).toBe(true);
    expect((await refresh(clientId, chain[3]!)).status).toBe(400);
    expect((await listTools(access)).status).toBe(401);
  });

  it("a stale read of the provider's store never lets a spent refresh token through", async () => {
    const { tenant, clientId, refreshToken } = await connectedClient();
    const [userId, providerGrant] = refreshToken.split(":");
    const key = `grant:${userId}:${providerGrant}`;
    const before = await env.OAUTH_KV.get(key);
    const next = await refresh(clientId, refreshToken);
    expect(next.status).toBe(200);
    // What KV read at another location could still answer: the grant as it was before the rotation.
    await env.OAUTH_KV.put(key, before!);
    const replayed = await refresh(clientId, refreshToken);
    expect(replayed.status).toBe(400);
    expect(await grantRevoked(tenant.accountId)).toBe(true);
    expect((await listTools(next.json.access_token)).status).toBe(401);
  });

  it("a token of no grant's shape is refused before it names an object or a key", async () => {
    const { clientId } = await connectedClient();
    for (const token of [`${"u".repeat(600)}:g:s`, "a:b:c:d", "a:b:s p"]) {
      const res = await refresh(clientId, token);
      expect(res.status, token.slice(0, 20)).toBe(400);
      expect(res.json.error).toBe("invalid_grant");
    }
  });
});

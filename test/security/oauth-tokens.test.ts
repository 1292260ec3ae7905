import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
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

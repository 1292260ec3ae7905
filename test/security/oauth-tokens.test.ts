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

const listTools = (token: string) =>
  call("POST", "/mcp", { token, headers: { Accept: "application/json, text/event-stream" }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });

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

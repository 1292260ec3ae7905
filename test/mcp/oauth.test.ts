import { env, exports } from "cloudflare:workers";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { revokeReplayedGrantRecord } from "../../src/tenancy/grants";
import { call, newKey, newMind, newTenant, store, unique } from "../helpers";
import { testDeps } from "../support/deps";
import { browser, csrfOf } from "../ui/ui-helpers";

const MCP_URL = new URL("https://edgemind.test/mcp");
const REDIRECT = "http://127.0.0.1:33418/callback";
const workerFetch = (url: string | URL, init?: RequestInit) => exports.default.fetch(new Request(url, init));

/** The SDK's client-side OAuth provider as an app implements it: it keeps what the flow gives it in memory. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly name: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state = () => "state-123";
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

const transportOf = (provider: OAuthClientProvider) => new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider, fetch: workerFetch });

async function connected(provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transportOf(provider));
  return client;
}

async function signedIn(token: string) {
  const b = browser();
  expect((await b.post("/ui/login", { jwt: token })).status).toBe(303);
  return b;
}

/**
 * The whole flow as a hosted assistant runs it: the SDK client is refused, discovers the
 * server, registers and sends the person to the consent page, which they answer; the
 * client then exchanges the code (with its PKCE verifier) for tokens.
 */
async function authorize(options: { token: string; mindId: string; agent?: string; name?: string }) {
  const provider = new MemoryOAuthProvider(options.name ?? unique("Test assistant"));
  const transport = transportOf(provider);
  await expect(new Client({ name: "oauth-test", version: "1.0.0" }).connect(transport)).rejects.toThrow(/unauthorized/i);
  const url = provider.authorizationUrl!;
  expect(url.pathname).toBe("/ui/oauth/authorize");
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  const b = await signedIn(options.token);
  const consent = await b.get(url.pathname + url.search);
  expect(consent.status).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(consent.text)![1]!;
  const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(consent.text), handle, mind: options.mindId, agent: options.agent ?? "", decision: "allow" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("Location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("state-123");
  await transport.finishAuth(back.searchParams.get("code")!);
  return { provider, browser: b, consent: consent.text };
}

const tool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const rawMcp = (token: string) =>
  call("POST", "/mcp", { token, headers: { Accept: "application/json, text/event-stream" }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });

describe("MCP over OAuth", () => {
  it("publishes the protected resource and authorization server metadata, and challenges a request without a token", async () => {
    const refused = await call("POST", "/mcp", { headers: { Accept: "application/json, text/event-stream" }, body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("WWW-Authenticate")).toContain('resource_metadata="https://edgemind.test/.well-known/oauth-protected-resource/mcp"');
    expect(refused.json.error).toMatchObject({ code: "unauthorized", message: expect.stringMatching(/Authorization: Bearer .*mind key/) });
    const resource = await call("GET", "/.well-known/oauth-protected-resource/mcp");
    expect(resource.json).toMatchObject({ resource: "https://edgemind.test/mcp", authorization_servers: ["https://edgemind.test"] });
    const server = await call("GET", "/.well-known/oauth-authorization-server");
    expect(server.json).toMatchObject({
      issuer: "https://edgemind.test",
      authorization_endpoint: "https://edgemind.test/ui/oauth/authorize",
      token_endpoint: "https://edgemind.test/oauth/token",
      registration_endpoint: "https://edgemind.test/oauth/register",
      code_challenge_methods_supported: expect.arrayContaining(["S256"]),
    });
    expect(server.json.revocation_endpoint).toBeTruthy();
  });

  it("runs the SDK client's flow end to end: register, consent, token, tools, a call, revoke, 401", async () => {
    const tenant = await newTenant();
    const other = await newMind(tenant.token);
    const { provider, browser: b, consent } = await authorize({ token: tenant.token, mindId: tenant.mind.id, name: "Claude-like assistant" });
    expect(consent).toContain("Claude-like assistant");
    expect(consent).toContain("127.0.0.1");
    expect(consent).toContain(other.name);
    expect(provider.saved?.access_token).toBeTruthy();
    expect(provider.saved?.refresh_token).toBeTruthy();

    const client = await connected(provider);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("memory_store");
    const stored = await tool(client, "memory_store", { category: "preference", key: "morning_drink", content: "Green tea at 7" });
    expect(stored.isError).toBeFalsy();
    const listed = await call("GET", "/memory", { token: tenant.token, mind: tenant.mind.id });
    expect(listed.json.memories).toMatchObject([{ key: "morning_drink", source: "agent", verified: false }]);

    const minds = await b.get("/ui/minds");
    await b.post("/ui/minds/switch", { _csrf: csrfOf(minds.text), mind: tenant.mind.id });
    const apps = await b.get("/ui/apps");
    expect(apps.text).toContain("Claude-like assistant");
    expect(apps.text).not.toMatch(/Last used: never/);
    const grantId = /name="grant" value="([^"]+)"/.exec(apps.text)![1]!;
    const revoked = await b.post("/ui/apps/revoke", { _csrf: csrfOf(apps.text), grant: grantId });
    expect(revoked.status).toBe(303);
    expect((await b.get("/ui/apps")).text).not.toContain("Claude-like assistant");

    const refused = await rawMcp(provider.saved!.access_token);
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe("unauthorized");
    // The SDK client answers the 401 by trying its refresh token, which the revocation also ended.
    await expect(tool(client, "memory_recall")).rejects.toThrow(/unauthorized|401|grant not found|grant was revoked/i);
    const refresh = await call("POST", "/oauth/token", {
      rawBody: new URLSearchParams({ grant_type: "refresh_token", refresh_token: provider.saved!.refresh_token!, client_id: provider.client!.client_id }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(refresh.status).toBe(400);
    expect(refresh.json.error).toBe("invalid_grant");
  });

  it("refreshes an access token, and the new token works", async () => {
    const tenant = await newTenant();
    const { provider } = await authorize({ token: tenant.token, mindId: tenant.mind.id });
    const refreshed = await call("POST", "/oauth/token", {
      rawBody: new URLSearchParams({ grant_type: "refresh_token", refresh_token: provider.saved!.refresh_token!, client_id: provider.client!.client_id }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.access_token).not.toBe(provider.saved!.access_token);
    expect((await rawMcp(refreshed.json.access_token)).status).toBe(200);
  });

  it("keeps a granted client inside its mind and namespace: another mind's memories never reach it", async () => {
    const tenant = await newTenant();
    const elsewhere = await newTenant();
    const { key: elsewhereKey } = await newKey(elsewhere.token, elsewhere.mind.id);
    await store({ token: elsewhereKey }, { key: "secret_plan", content: "The zebra protocol is secret" });
    const ownMind = await newMind(tenant.token);
    await store({ token: tenant.token, mind: ownMind.id }, { key: "other_mind_fact", content: "The zebra lives in the other mind" });
    const { provider } = await authorize({ token: tenant.token, mindId: tenant.mind.id, agent: "assistant" });
    const client = await connected(provider);
    const found = (await tool(client, "memory_search", { q: "zebra" })).structuredContent as { results: unknown[] };
    expect(found.results).toEqual([]);
    await tool(client, "memory_store", { category: "fact", key: "zebra_note", content: "A zebra fact of this mind" });
    const mine = await call("GET", "/memory", { token: tenant.token, mind: tenant.mind.id });
    expect(mine.json.memories).toMatchObject([{ key: "zebra_note", agent: "assistant" }]);
    const theirs = await call("GET", "/memory?limit=100", { token: elsewhere.token, mind: elsewhere.mind.id });
    expect(theirs.json.memories.map((m: { key: string }) => m.key)).toEqual(["secret_plan"]);
    const another = await call("GET", "/memory", { token: tenant.token, mind: ownMind.id });
    expect(another.json.memories.map((m: { key: string }) => m.key)).toEqual(["other_mind_fact"]);
  });

  it("refuses to grant a mind the person does not own", async () => {
    const tenant = await newTenant();
    const stranger = await newTenant();
    const provider = new MemoryOAuthProvider("Sneaky");
    await expect(new Client({ name: "t", version: "1" }).connect(transportOf(provider))).rejects.toThrow(/unauthorized/i);
    const b = await signedIn(tenant.token);
    const url = provider.authorizationUrl!;
    const consent = await b.get(url.pathname + url.search);
    const handle = /name="handle" value="([^"]+)"/.exec(consent.text)![1]!;
    const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(consent.text), handle, mind: stranger.mind.id, decision: "allow" });
    expect(answer.status).toBe(404);
    expect(answer.headers.get("Location")).toBeNull();
  });

  it("stops a revoked grant at once where it was revoked, even while the provider still holds its token", async () => {
    const tenant = await newTenant();
    const { provider } = await authorize({ token: tenant.token, mindId: tenant.mind.id });
    expect((await rawMcp(provider.saved!.access_token)).status).toBe(200);
    // Only the record is revoked (the provider's tokens live on); other isolates follow within DIRECTORY_TTL_MS.
    const grant = (await env.DB.prepare("SELECT id FROM oauth_grants WHERE account_id = ?").bind(tenant.accountId).first<{ id: string }>())!;
    await revokeReplayedGrantRecord(testDeps(), grant.id);
    expect((await rawMcp(provider.saved!.access_token)).status).toBe(401);
  });

  it("sends a denial back to the client as access_denied", async () => {
    const tenant = await newTenant();
    const provider = new MemoryOAuthProvider("Denied app");
    await expect(new Client({ name: "t", version: "1" }).connect(transportOf(provider))).rejects.toThrow(/unauthorized/i);
    const b = await signedIn(tenant.token);
    const url = provider.authorizationUrl!;
    const consent = await b.get(url.pathname + url.search);
    const handle = /name="handle" value="([^"]+)"/.exec(consent.text)![1]!;
    const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(consent.text), handle, mind: tenant.mind.id, decision: "deny" });
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get("Location")!).searchParams.get("error")).toBe("access_denied");
    expect((await b.get("/ui/apps")).text).not.toContain("Denied app");
  });

  it("asks a person who is not signed in to log in, then brings them back to the consent page", async () => {
    const tenant = await newTenant();
    const provider = new MemoryOAuthProvider("Later app");
    await expect(new Client({ name: "t", version: "1" }).connect(transportOf(provider))).rejects.toThrow(/unauthorized/i);
    const url = provider.authorizationUrl!;
    const b = browser();
    const bounce = await b.get(url.pathname + url.search);
    expect(bounce.text).toContain('http-equiv="refresh"');
    const again = new URL(url);
    again.searchParams.set("edgemind_same_site", "1");
    const login = await b.get(again.pathname + again.search);
    expect(login.status).toBe(401);
    const next = /name="next" value="([^"]+)"/.exec(login.text)![1]!.replaceAll("&amp;", "&");
    const signed = await b.post("/ui/login", { jwt: tenant.token, next });
    expect(signed.status).toBe(303);
    expect(signed.headers.get("Location")).toBe(next);
    expect((await b.get(next)).text).toContain("Later app");
    const evil = await browser().post("/ui/login", { jwt: tenant.token, next: "https://evil.example/" });
    expect(evil.headers.get("Location")).not.toContain("evil");
  });

  it("keeps the OAuth request when the person switches the consent page's language, signed in or not", async () => {
    const tenant = await newTenant();
    const provider = new MemoryOAuthProvider("Bilingual app");
    const transport = transportOf(provider);
    await expect(new Client({ name: "t", version: "1" }).connect(transport)).rejects.toThrow(/unauthorized/i);
    const url = provider.authorizationUrl!;
    const switchTo = (html: string, lang: string) => {
      const href = new RegExp(`<a href="([^"]+)" lang="${lang}">`).exec(html)![1]!.replaceAll("&amp;", "&");
      return new URL(href, url);
    };
    const keepsRequest = (switched: URL) => {
      for (const [name, value] of url.searchParams) expect(switched.searchParams.get(name), name).toBe(value);
      expect(switched.pathname).toBe("/ui/oauth/authorize");
    };

    // Signed out: the login page in front of the consent switches language without losing it.
    const marked = new URL(url);
    marked.searchParams.set("edgemind_same_site", "1");
    const login = await browser().get(marked.pathname + marked.search);
    expect(login.status).toBe(401);
    keepsRequest(switchTo(login.text, "ru"));

    // Signed in: the consent page in Russian is still the same request, and it can be allowed.
    const b = await signedIn(tenant.token);
    const english = await b.get(url.pathname + url.search);
    const russianUrl = switchTo(english.text, "ru");
    keepsRequest(russianUrl);
    expect(russianUrl.searchParams.get("lang")).toBe("ru");
    const russian = await b.get(russianUrl.pathname + russianUrl.search);
    expect(russian.status).toBe(200);
    expect(russian.text).toContain('lang="ru"');
    expect(russian.text).toContain("Bilingual app");
    keepsRequest(switchTo(russian.text, "en"));
    const handle = /name="handle" value="([^"]+)"/.exec(russian.text)![1]!;
    const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(russian.text), handle, mind: tenant.mind.id, agent: "", decision: "allow" });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get("Location")!);
    await transport.finishAuth(back.searchParams.get("code")!);
    const client = await connected(provider);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();

    // A login link and a failed login keep what they carry too.
    const link = await browser().get("/ui/login?token=abc123");
    expect(switchTo(link.text, "ru").searchParams.get("token")).toBe("abc123");
    const failed = await browser().post("/ui/login", { jwt: "not-a-token", next: url.pathname + url.search });
    expect(failed.status).toBe(401);
    expect(switchTo(failed.text, "ru").searchParams.get("next")).toBe(url.pathname + url.search);
  });

  it("keeps a client that completed an authorization as long as its grant can live; a bare registration lasts a day", async () => {
    const tenant = await newTenant();
    const { provider } = await authorize({ token: tenant.token, mindId: tenant.mind.id });
    const [stored] = (await env.OAUTH_KV.list({ prefix: `client:${provider.client!.client_id}` })).keys;
    const days = (stored!.expiration! - Date.now() / 1000) / 86_400;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);
    // A refresh keeps it too, and the client's tokens still work.
    expect((await rawMcp(provider.saved!.access_token)).status).toBe(200);
  });

  it("keeps mind keys working on /mcp beside OAuth", async () => {
    const tenant = await newTenant();
    const { key } = await newKey(tenant.token, tenant.mind.id);
    expect((await rawMcp(key)).status).toBe(200);
    expect((await rawMcp("emk_wrong.key")).status).toBe(401);
  });
});

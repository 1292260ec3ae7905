import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import worker from "../../src/index";
import { unique } from "../../test/helpers";
import { browser, csrfOf } from "../../test/ui/ui-helpers";

const ORIGIN = "https://edgemind.test";
const REDIRECT = "http://127.0.0.1:33418/callback";

/**
 * A request through the Worker's own fetch over the isolate's (wrapped) env: answers when the
 * response's body is read; `settled` finishes the work it deferred.
 */
export async function fetchWorker(request: Request): Promise<Response & { settled: Promise<void> }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  const body = await res.arrayBuffer();
  return Object.assign(new Response(body, res), { settled: waitOnExecutionContext(ctx) });
}

export async function send(method: string, path: string, token: string, body?: unknown, ip = "10.0.0.1") {
  const headers = new Headers({ Authorization: `Bearer ${token}`, "CF-Connecting-IP": ip });
  if (body !== undefined) headers.set("Content-Type", "application/json");
  const res = await fetchWorker(new Request(`${ORIGIN}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  // Some answers are markdown (recall, context): only a JSON one is parsed.
  const json = res.headers.get("Content-Type")?.includes("json") ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { json, settled: res.settled };
}

const transportOf = (init: { token?: string; provider?: OAuthClientProvider }) =>
  new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
    ...(init.token && { requestInit: { headers: { Authorization: `Bearer ${init.token}` } } }),
    ...(init.provider && { authProvider: init.provider }),
    fetch: async (url, options) => {
      const res = await fetchWorker(new Request(url, options));
      await res.settled;
      return res;
    },
  });

/** An MCP client connected with a mind key, or with an OAuth provider holding tokens. */
export async function mcpClient(init: { token?: string; provider?: OAuthClientProvider }): Promise<Client> {
  const client = new Client({ name: "latency", version: "1.0.0" });
  await client.connect(transportOf(init));
  return client;
}

/** The SDK's client-side OAuth provider as an app implements it, in memory. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: unique("Latency assistant"), redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }
  state = () => "state-latency";
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

/** The whole OAuth flow as test/mcp/oauth.test.ts runs it: refused, registered, consented, the code exchanged for tokens. */
export async function oauthProvider(humanToken: string, mindId: string): Promise<OAuthClientProvider> {
  const provider = new MemoryOAuthProvider();
  const transport = transportOf({ provider });
  await new Client({ name: "latency", version: "1.0.0" }).connect(transport).catch(() => undefined);
  const url = provider.authorizationUrl;
  if (!url) throw new Error("the MCP client was not sent to authorize");
  const b = browser();
  await b.post("/ui/login", { jwt: humanToken });
  const consent = await b.get(url.pathname + url.search);
  const handle = /name="handle" value="([^"]+)"/.exec(consent.text)?.[1];
  if (!handle) throw new Error(`no consent page: ${consent.status}`);
  const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(consent.text), handle, mind: mindId, agent: "", decision: "allow" });
  const back = new URL(answer.headers.get("Location")!);
  await transport.finishAuth(back.searchParams.get("code")!);
  if (!provider.saved?.access_token) throw new Error("no OAuth token");
  return provider;
}

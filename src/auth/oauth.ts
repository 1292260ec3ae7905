import {
  AuthorizationError,
  type AuthRequest,
  getOAuthApi,
  type OAuthHelpers,
  OAuthProvider,
  type OAuthProviderOptions,
  type ResolveExternalTokenInput,
  type ResolveExternalTokenResult,
} from "@cloudflare/workers-oauth-provider";
import { systemClock } from "../clock";
import { createDb } from "../db/client";
import { invalid, unauthorized } from "../errors";
import { readBodyWithin } from "../http/body-limit";
import { errorResponse, failureOfStatus, oauthErrorResponse } from "../http/errors";
import { isLoopbackHost } from "../http/loopback";
import { loneSurrogateInBody, loneSurrogateRefused } from "../json-text";
import { RateLimited } from "../limits/rate-limits";
import type { GrantTokens } from "../tenancy/grants";
import { authenticateMindKey, looksLikeMindKey } from "../tenancy/keys";
import type { Principal } from "../tenancy/principal";
import { checkClientMetadata, clientOfCodeExchange, countRegistration, keepAuthorizedClient, UNAUTHORIZED_CLIENT_TTL_SECONDS } from "./client-registration";
import { addressOf, bearerToken, countAuthFailure, refuseBlockedCaller } from "./middleware";
import { grantCallOf, grantObject } from "./token-gate";

// MCP clients that are added by URL (hosted assistants, IDEs) find edgemind's OAuth server from
// /mcp's 401 challenge, register themselves, send the person to the consent page of the web UI
// and get tokens bound to /mcp. @cloudflare/workers-oauth-provider serves the metadata,
// registration, token and revocation endpoints and checks every token; the web UI owns consent.

export const MCP_PATH = "/mcp";
export const AUTHORIZE_PATH = "/ui/oauth/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
/** One scope: the client works in the granted mind as an agent with a mind key would. */
export const MIND_SCOPE = "mind";

const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 90 * 24 * 60 * 60;

/** What a valid bearer token on /mcp stands for, as the provider hands it to the MCP front. */
export type McpAuth = { kind: "mind_key"; principal: Principal } | { kind: "grant"; grantId: string };

/** What a grant's tokens carry (encrypted by the provider). */
export interface GrantProps {
  grantId: string;
}

type Handler = { fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> };

/**
 * The public origin: PUBLIC_URL when set (it must then be the one clients use), else the
 * request's. Tokens are bound to HTTPS origins (plain HTTP only on a loopback host), so a plain
 * HTTP request naming any other host (only a local server sees one) gets its HTTPS origin.
 */
export function publicOrigin(env: Env, requestUrl: string): string {
  const url = new URL(env.PUBLIC_URL?.trim() || requestUrl);
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) url.protocol = "https:";
  return url.origin;
}

function providerOptions(origin: string, app: Handler): OAuthProviderOptions<Env> {
  return {
    apiRoute: MCP_PATH,
    apiHandler: { fetch: (request, env, ctx) => app.fetch(request, env, ctx) },
    defaultHandler: { fetch: (request, env, ctx) => app.fetch(request as Request, env, ctx) },
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    clientRegistrationCallback: checkClientMetadata,
    clientRegistrationTTL: UNAUTHORIZED_CLIENT_TTL_SECONDS,
    scopesSupported: [MIND_SCOPE],
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    resourceMetadata: { resource: `${origin}${MCP_PATH}`, resource_name: "edgemind memory" },
    resolveExternalToken: resolveMindKey(origin),
    onError: ({ status, headers, internal, description }) => {
      // The protected resource answers in edgemind's error shape; the OAuth endpoints keep RFC 6749's.
      if (internal.category !== "protected-resource") return undefined;
      const failure = failureOfStatus(status, `/mcp needs a mind key or an OAuth access token: ${description}`);
      return failure ? errorResponse(failure, null, headers) : undefined;
    },
  };
}

/** Mind keys keep working on /mcp: the provider asks this for any token it did not issue. */
function resolveMindKey(origin: string) {
  return async ({ token, env }: ResolveExternalTokenInput<Env>): Promise<ResolveExternalTokenResult | null> => {
    if (!looksLikeMindKey(token)) return null;
    const principal = await authenticateMindKey({ directory: createDb(env.DB), clock: systemClock }, token);
    if (!principal) return null;
    const auth: McpAuth = { kind: "mind_key", principal };
    return { props: auth, audience: `${origin}${MCP_PATH}` };
  };
}

const NOT_SERVED: Handler = { fetch: () => new Response(null, { status: 404 }) };

/** The provider's helpers (consent, grants) for code outside its own dispatch, such as the UI. */
export function oauthHelpers(env: Env, requestUrl: string): OAuthHelpers {
  return getOAuthApi(providerOptions(publicOrigin(env, requestUrl), NOT_SERVED), env);
}

/** The provider's grants as a mind's connected clients are listed and revoked: a revocation goes through the grant's object. */
export function grantTokens(env: Env, requestUrl: string): GrantTokens {
  const helpers = oauthHelpers(env, requestUrl);
  return {
    listUserGrants: (userId, options) => helpers.listUserGrants(userId, options),
    revokeGrant: (grantId, userId) => grantObject(env, userId, grantId).revoke(requestUrl, { userId, grantId }),
  };
}

/** The provider as a grant's object runs a token request through it (src/auth/grant-object.ts). */
export function tokenProvider(env: Env, requestUrl: string): OAuthProvider<Env> {
  return new OAuthProvider(providerOptions(publicOrigin(env, requestUrl), NOT_SERVED));
}

/**
 * The authorization request, refused unless it carries a PKCE S256 challenge. The provider asks
 * PKCE of public clients only; a client with a secret must use it too, so a code intercepted on
 * its way back (or injected into the client) is worth nothing without the verifier.
 */
export function requirePkceS256(request: AuthRequest): AuthRequest {
  if (request.codeChallenge && request.codeChallengeMethod === "S256") return request;
  const description = request.codeChallenge
    ? "code_challenge_method must be S256"
    : "PKCE is required: send code_challenge with code_challenge_method=S256";
  throw new AuthorizationError("invalid_request", { description, redirectUri: request.redirectUri, state: request.state, issuer: request.issuer });
}

/** Largest body the registration and token endpoints read (their requests are a few hundred bytes). */
export const OAUTH_MAX_BODY_BYTES = 16 * 1024;

/** The longest origin served: https://, a host name of 253 characters, a port. */
const MAX_ORIGIN_CHARS = 8 + 253 + 6;

/** The whole Worker's fetch with OAuth in front of it: /mcp checked, OAuth endpoints served. */
export function withOAuth(app: Handler): Handler {
  const providers = new Map<string, OAuthProvider<Env>>();
  return {
    async fetch(request, env, ctx) {
      const origin = publicOrigin(env, request.url);
      // A host name has at most 253 characters: no longer origin becomes a key of the providers below.
      if (origin.length > MAX_ORIGIN_CHARS) return errorResponse(invalid("the Host header names no origin this Worker serves"), request);
      let provider = providers.get(origin);
      if (!provider) {
        // A Worker answers on a few hostnames at most (workers.dev, a custom domain).
        if (providers.size >= 8) providers.clear();
        try {
          provider = new OAuthProvider(providerOptions(origin, app));
        } catch {
          return errorResponse(invalid("the Host header names no origin this Worker serves"), request);
        }
        providers.set(origin, provider);
      }
      const path = new URL(request.url).pathname;
      if (path === MCP_PATH) return countingFailures(provider, request, env, ctx);
      if (request.method === "POST" && (path === REGISTER_PATH || path === TOKEN_PATH)) return boundedOAuthPost(provider, path, request, env, ctx);
      return provider.fetch(request, env, ctx);
    },
  };
}

/**
 * Registration and token requests, with their bodies bounded (read whole first, so no refusal
 * leaves one unread); a registration is counted against the client's address, a token request
 * acting on a grant is decided by that grant's object (src/auth/token-gate.ts), and a completed
 * code exchange keeps its client registered.
 */
async function boundedOAuthPost(provider: OAuthProvider<Env>, path: string, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const body = await readBodyWithin(request, OAUTH_MAX_BODY_BYTES);
  if (!body.complete) {
    return oauthErrorResponse("invalid_request", `the request body is larger than ${OAUTH_MAX_BODY_BYTES} bytes`, 413);
  }
  if (path === REGISTER_PATH) {
    // The provider reads the registration as JSON whatever its type: held to every JSON body's rule.
    const surrogate = loneSurrogateInBody(body.bytes);
    if (surrogate !== null) return oauthErrorResponse("invalid_client_metadata", loneSurrogateRefused(surrogate).message);
    try {
      await countRegistration(env, addressOf(request));
    } catch (err) {
      if (!(err instanceof RateLimited)) throw err;
      return errorResponse(err, request);
    }
  }
  const form = path === TOKEN_PATH ? new URLSearchParams(new TextDecoder().decode(body.bytes)) : null;
  const call = form ? grantCallOf(form) : null;
  if (call instanceof Response) return call;
  const whole = new Request(request, { body: body.bytes });
  const response = call ? await grantObject(env, call.userId, call.grantId).token(whole, call) : await provider.fetch(whole, env, ctx);
  if (form && response.ok) {
    const clientId = clientOfCodeExchange(form, request.headers.get("Authorization"));
    if (clientId) await keepAuthorizedClient(env, clientId, REFRESH_TOKEN_TTL_SECONDS);
  }
  return response;
}

/**
 * /mcp as the provider answers it, with its failed authentications counted in the same
 * per-address and per-key limits as the REST API's: 429 (edgemind's error shape) once over.
 */
async function countingFailures(provider: OAuthProvider<Env>, request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  const token = bearerToken(request.headers.get("Authorization") ?? undefined);
  const address = addressOf(request);
  try {
    await refuseBlockedCaller(env, address, token);
    const response = await provider.fetch(request, env, ctx);
    if (response.status === 401) {
      await countAuthFailure(env, address, token);
      // The provider's onError sees no request: its body is written again, naming the request.
      return errorResponse(unauthorized((await messageOf(response)) ?? MCP_CREDENTIALS), request, response.headers);
    }
    if (response.status >= 400) return await namingTheRequest(response, request);
    return response;
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    return errorResponse(err, request);
  }
}

/** What /mcp asks for, in the challenge's body as well as its WWW-Authenticate (a person reading curl sees this). */
const MCP_CREDENTIALS = "/mcp needs Authorization: Bearer with a mind key (emk_…) or an OAuth access token (see WWW-Authenticate)";

/** A refusal the provider's onError wrote in edgemind's body, written again naming the request; any other answer as it is. */
async function namingTheRequest(response: Response, request: Request): Promise<Response> {
  const error = await errorOf(response.clone());
  // edgemind's body names its code in words (a JSON-RPC error's is a number, and stays as it is).
  const ours = typeof error?.code === "string" && typeof error.message === "string" && error.requestId === undefined;
  const failure = ours ? failureOfStatus(response.status, error.message as string) : null;
  return failure ? errorResponse(failure, request, response.headers) : response;
}

/** The `error` of an answer's JSON body, or null (no body, not JSON). */
async function errorOf(response: Response): Promise<{ code?: unknown; message?: unknown; requestId?: unknown } | null> {
  if (response.body === null) return null;
  const body: unknown = await response.json().catch(() => null);
  return (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | null)?.error ?? null;
}

/** The message of the error body the provider's onError wrote; null when it wrote none. */
async function messageOf(response: Response): Promise<string | null> {
  const message = (await errorOf(response))?.message;
  return typeof message === "string" ? message : null;
}

/** The grant props of a token, as the MCP front reads them from the execution context. */
export function mcpAuthOf(props: unknown): McpAuth | null {
  if (typeof props !== "object" || props === null) return null;
  const value = props as Partial<McpAuth & GrantProps>;
  if (value.kind === "mind_key" && value.principal) return value as McpAuth;
  if (typeof value.grantId === "string") return { kind: "grant", grantId: value.grantId };
  return null;
}

import type { ClientRegistrationCallbackOptions, ClientRegistrationCallbackResult } from "@cloudflare/workers-oauth-provider";
import { isLoopbackHost } from "../http/loopback";
import { countEvent, readRateLimits } from "../limits/rate-limits";

// Dynamic client registration is open to anyone (that is its point), so everything a client
// registers is bounded: what it stores, what the consent page shows and what lands in that
// page's Content-Security-Policy. A registration that never leads to an authorization expires.

export const CLIENT_NAME_MAX_CHARS = 100;
export const REDIRECT_URIS_MAX = 5;
export const URI_MAX_CHARS = 512;
const CONTACTS_MAX = 5;
const FIELDS_MAX = 30;
/** Any other field, as JSON. */
const FIELD_MAX_CHARS = 1_000;
/** A registered client that has not completed an authorization within a day is gone. */
export const UNAUTHORIZED_CLIENT_TTL_SECONDS = 24 * 60 * 60;

const URI_FIELDS = ["client_uri", "logo_uri", "policy_uri", "tos_uri", "jwks_uri"];

const refuse = (description: string, code = "invalid_client_metadata"): ClientRegistrationCallbackResult => ({ code, description, status: 400 });

/** Why a redirect URI is refused, or null: https, or http on a loopback host; no wildcard, no credentials, no fragment. */
function redirectProblem(uri: unknown): string | null {
  if (typeof uri !== "string") return "a redirect URI must be a string";
  if (uri.length > URI_MAX_CHARS) return `a redirect URI is at most ${URI_MAX_CHARS} characters`;
  if (uri.includes("*")) return "a redirect URI cannot hold a wildcard (*)";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "a redirect URI must be an absolute URI";
  }
  if (url.username || url.password) return "a redirect URI cannot hold credentials";
  if (url.hash) return "a redirect URI cannot hold a fragment";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return null;
  return "a redirect URI must use https, or http on a loopback host (127.0.0.1, [::1], localhost)";
}

/** Why a URI field that is shown or fetched is refused, or null. */
function uriFieldProblem(name: string, value: unknown): string | null {
  if (typeof value !== "string") return `${name} must be a string`;
  if (value.length > URI_MAX_CHARS) return `${name} is at most ${URI_MAX_CHARS} characters`;
  if (value.includes("*")) return `${name} cannot hold a wildcard (*)`;
  return null;
}

/** The provider's registration callback: every field bounded before the client is stored. */
export function checkClientMetadata({ clientMetadata: m }: ClientRegistrationCallbackOptions): ClientRegistrationCallbackResult | undefined {
  const fields = Object.entries(m);
  if (fields.length > FIELDS_MAX) return refuse(`a registration has at most ${FIELDS_MAX} fields`);
  for (const [name, value] of fields) {
    const base = name.split("#", 1)[0]!;
    if (base === "client_name") {
      if (typeof value !== "string" || value.length > CLIENT_NAME_MAX_CHARS) return refuse(`${name} is a string of at most ${CLIENT_NAME_MAX_CHARS} characters`);
    } else if (URI_FIELDS.includes(base)) {
      const problem = uriFieldProblem(name, value);
      if (problem) return refuse(problem);
    } else if (name === "contacts") {
      if (!Array.isArray(value) || value.length > CONTACTS_MAX || value.some((c) => typeof c !== "string" || c.length > 200)) {
        return refuse(`contacts is a list of at most ${CONTACTS_MAX} addresses`);
      }
    } else if (name !== "redirect_uris" && JSON.stringify(value).length > FIELD_MAX_CHARS) {
      return refuse(`${name} is at most ${FIELD_MAX_CHARS} characters`);
    }
  }
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > REDIRECT_URIS_MAX) {
    return refuse(`redirect_uris is a list of 1 to ${REDIRECT_URIS_MAX} URIs`, "invalid_redirect_uri");
  }
  for (const uri of uris) {
    const problem = redirectProblem(uri);
    if (problem) return refuse(problem, "invalid_redirect_uri");
  }
  return undefined;
}

/** Counts a registration against the client's address; `RateLimited` past RATE_LIMIT_REGISTRATIONS_PER_IP. */
export async function countRegistration(env: Env, address: string): Promise<void> {
  const limits = readRateLimits(env);
  await countEvent(env.RATE_LIMITS, limits, [
    { name: `registrations:ip:${address}`, limit: limits.registrationsPerIp, describe: "client registrations per client address (RATE_LIMIT_REGISTRATIONS_PER_IP)" },
  ]);
}

/**
 * The client a successful token request exchanged an authorization code for (client_id in the
 * form, or the user of HTTP Basic), or null for any other grant.
 */
export function clientOfCodeExchange(form: URLSearchParams, authorization: string | null): string | null {
  if (form.get("grant_type") !== "authorization_code") return null;
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? "");
  if (basic) {
    try {
      return decodeURIComponent(atob(basic[1]!).split(":", 1)[0]!);
    } catch {
      return null;
    }
  }
  return form.get("client_id");
}

/**
 * A client that completed an authorization is kept as long as the grant it got can live
 * (`ttlSeconds`, the refresh token's lifetime): its registration record, stamped by the provider
 * to expire a day after registration, is written again with the longer expiry (the provider
 * renews a record only in the last half of its registration TTL, so this stamp holds).
 */
export async function keepAuthorizedClient(env: Env, clientId: string, ttlSeconds: number): Promise<void> {
  const key = `client:${clientId}`;
  const record = await env.OAUTH_KV.get<Record<string, unknown>>(key, "json");
  // Gone, or created without an expiry (not by registration): nothing to extend.
  if (!record || typeof record.registrationExpiresAt !== "number") return;
  const now = Math.floor(Date.now() / 1000);
  await env.OAUTH_KV.put(key, JSON.stringify({ ...record, registrationExpiresAt: now + ttlSeconds }), { expirationTtl: ttlSeconds });
}

import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { readAuthConfig } from "../config";
import { forbidden, unauthorized } from "../errors";
import { isLoopbackHost } from "../http/loopback";
import { type Bucket, countEvent, readRateLimits, refuseIfBlocked } from "../limits/rate-limits";
import { limitRequest } from "../limits/request-limits";
import { secretsEqual, sha256Hex } from "../secrets";
import { bookmarkSeal, openMindSession, readMindBookmark, sealBookmark } from "../tenancy/bookmarks";
import { knownAccount } from "../tenancy/directory-cache";
import { authenticateMindKey, looksLikeMindKey } from "../tenancy/keys";
import { requestedMindId, resolveMindContext } from "../tenancy/mind-context";
import { AGENT_PATTERN, type Principal } from "../tenancy/principal";
import { verifyAccountToken } from "./jwt";

export { AGENT_PATTERN };

/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/**
 * The client's address for the per-address limits: `CF-Connecting-IP`, which Cloudflare's edge
 * sets on every request (replacing any a client sent). A request to a loopback host comes from
 * this machine (`wrangler dev`, where nothing replaces the header): one address, whatever it says.
 */
export function addressOf(request: Request): string {
  if (isLoopbackHost(new URL(request.url).hostname)) return "loopback";
  const address = request.headers.get("CF-Connecting-IP") ?? "";
  // It names rate-limit buckets and their cache: anything longer or stranger than an address is one "unknown".
  return ADDRESS.test(address) ? address : "unknown";
}

/** An address as Cloudflare writes it (IPv6 takes at most 45 characters), with room to spare. */
const ADDRESS = /^[\w.:-]{1,64}$/;
export const clientAddress = (c: Context<AppEnv>) => addressOf(c.req.raw);

// Longest key prefix a failure bucket is named after: longer "prefixes" are not keys anyway.
const MAX_PREFIX_CHARS = 40;

/**
 * The buckets a failed authentication counts in: the client's address, the key prefix it named
 * and the very credential it presented (by its SHA-256). Only the last refuses before a check:
 * the others answer a failure with 429 instead of 401, and never refuse a valid credential,
 * whatever others sent from the same address or with the same prefix.
 */
async function failureBuckets(env: Env, address: string, token: string | null): Promise<{ before: Bucket[]; after: Bucket[] }> {
  const limits = readRateLimits(env);
  const after: Bucket[] = [
    {
      name: `auth-failures:ip:${address}`,
      limit: limits.authFailuresPerIp,
      describe: "failed authentications per client address (RATE_LIMIT_AUTH_FAILURES_PER_IP)",
    },
  ];
  if (!token) return { before: [], after };
  if (looksLikeMindKey(token)) {
    after.push({
      name: `auth-failures:key:${token.split(".", 1)[0]!.slice(0, MAX_PREFIX_CHARS)}`,
      limit: limits.authFailuresPerKey,
      describe: "failed authentications per key (RATE_LIMIT_AUTH_FAILURES_PER_KEY)",
    });
  }
  const credential: Bucket = {
    name: `auth-failures:credential:${await sha256Hex(token)}`,
    limit: limits.authFailuresPerKey,
    describe: "failed authentications with one credential (RATE_LIMIT_AUTH_FAILURES_PER_KEY)",
  };
  return { before: [credential], after: [...after, credential] };
}

/**
 * Before a credential is checked: the very credential this isolate knows to have failed too
 * often is refused at once (`RateLimited`), without a call to anything. Nothing else is refused
 * here, so a valid credential is always checked. Every front that checks a credential (REST,
 * /mcp, the web UI's login) calls this first.
 */
export async function refuseBlockedCaller(env: Env, address: string, token: string | null): Promise<void> {
  refuseIfBlocked((await failureBuckets(env, address, token)).before);
}

/**
 * Counts a failed authentication per client address, per presented key prefix and per
 * presented credential; `RateLimited` once over a limit.
 */
export async function countAuthFailure(env: Env, address: string, token: string | null): Promise<void> {
  await countEvent(env.RATE_LIMITS, readRateLimits(env), (await failureBuckets(env, address, token)).after);
}

/** `refuseBlockedCaller` for a request of the app. */
export async function refuseBlockedClient(c: Context<AppEnv>, token: string | null): Promise<void> {
  await refuseBlockedCaller(c.env, clientAddress(c), token);
}

/**
 * A failed authentication: counted per client address, key prefix and credential; the answer
 * is 401, or 429 once a limit is reached. Only failures cost a rate-limit call.
 */
export async function failAuthentication(c: Context<AppEnv>, token: string | null, message?: string): Promise<never> {
  await countAuthFailure(c.env, clientAddress(c), token);
  throw unauthorized(message);
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Counts the request, a read (GET, HEAD, OPTIONS) or a write (any other method), against the
 * caller's key, client or account and its client address, in the Workers Rate Limiting bindings:
 * no round trip; 429 over a limit.
 */
export async function limitRequests(c: Context<AppEnv>, principal: Principal): Promise<void> {
  const [kind, what] = READS.has(c.req.method) ? (["READS", "reads"] as const) : (["WRITES", "writes"] as const);
  const who =
    principal.kind === "agent" ? `key:${principal.keyId}` : principal.kind === "client" ? `grant:${principal.grantId}` : principal.kind === "system" ? `system:${principal.job}` : `account:${principal.accountId}`;
  await limitRequest(c.env, [
    { limiter: `${kind}_PER_KEY`, key: who, describe: `${what} per key, client or account` },
    { limiter: `${kind}_PER_IP`, key: `ip:${clientAddress(c)}`, describe: `${what} per client address` },
  ]);
}

/**
 * Lets only the operator's ADMIN_TOKEN through. Another valid credential (a mind key, a
 * person's token) is refused with 403 and not counted: being refused a route is not a failed
 * authentication, and must not lock the credential out of the routes it may use.
 */
export async function checkAdminToken(c: Context<AppEnv>): Promise<void> {
  const presented = bearerToken(c.req.header("Authorization"));
  await refuseBlockedClient(c, presented);
  if (presented && (await secretsEqual(presented, readAuthConfig(c.env).adminToken))) return;
  if (presented && !("failure" in (await verifyCredential(c, presented)))) {
    throw forbidden("admin token required: a mind key or a person's token cannot use this route");
  }
  await failAuthentication(c, presented, "admin token required");
}

/** The operator's routes (the whole service, not one tenant): ADMIN_TOKEN only. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  await checkAdminToken(c);
  await next();
});

/** The admin token sent to a route of minds: valid, but not here, so refused (403) and never counted as a failure. */
const ADMIN_TOKEN_HERE =
  "the admin token is for the operator's routes (POST /auth/token, /jobs, /shards, /telegram/setup): " +
  "here send a mind key (emk_…) or a person's token from POST /auth/token";

/** Whom a bearer credential names (a live mind key, a person's valid token), the operator's token, or why it fails. */
async function verifyCredential(c: Context<AppEnv>, token: string): Promise<{ principal: Principal } | { operator: true } | { failure: string }> {
  const deps = c.var.deps;
  if (looksLikeMindKey(token)) {
    const principal = await authenticateMindKey(deps, token);
    return principal ? { principal } : { failure: "unknown or revoked mind key" };
  }
  const config = readAuthConfig(c.env);
  const accountId = await verifyAccountToken(config, token);
  if (accountId && (await knownAccount(deps, accountId, requestedMindId(c.req.header("X-Mind-Id"))))) return { principal: { kind: "human", accountId } };
  if (await secretsEqual(token, config.adminToken)) return { operator: true };
  return { failure: "invalid or expired token: get a new one from POST /auth/token" };
}

const MISSING_CREDENTIALS = "missing credentials: send Authorization: Bearer with a mind key (emk_…) or a person's token from POST /auth/token";

/** Accepts a human's JWT or a mind key; anything else is 401 (429 after too many failures). */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  await refuseBlockedClient(c, token);
  if (!token) return failAuthentication(c, token, MISSING_CREDENTIALS);
  const verified = await verifyCredential(c, token);
  if ("failure" in verified) return failAuthentication(c, token, verified.failure);
  if ("operator" in verified) throw forbidden(ADMIN_TOKEN_HERE);
  const { principal } = verified;
  await limitRequests(c, principal);
  c.set("principal", principal);
  await next();
});

/** Routes that manage accounts' minds and keys are for humans only. */
export const requireHuman = createMiddleware<AppEnv>(async (c, next) => {
  const principal = c.var.principal;
  if (principal.kind !== "human") throw forbidden("this route needs a human's token, not a mind key");
  c.set("accountId", principal.accountId);
  await next();
});

/** Where a client reads (and sends back) its bookmark of the mind a request worked in. */
export const BOOKMARK_HEADER = "X-Edgemind-Bookmark";

/**
 * Settles which mind and agent namespace a request works in: a mind key implies its mind
 * (and namespace, if scoped); a human names the mind with X-Mind-Id and must own it; the
 * namespace may be chosen with `?agent=`. The request works through one D1 session that starts
 * where the caller was last seen (src/tenancy/bookmarks.ts); a successful answer hands back
 * the newest bookmark it reached, a write's own included, with no statement of its own.
 */
export const requireScope = createMiddleware<AppEnv>(async (c, next) => {
  const seal = await bookmarkSeal(readAuthConfig(c.env).jwtSecret);
  const sent = await readMindBookmark(seal, c.req.header(BOOKMARK_HEADER));
  const mindContext = await resolveMindContext(c.var.deps, c.var.principal, {
    mindId: c.req.header("X-Mind-Id"),
    agent: c.req.query("agent"),
  });
  const session = openMindSession(mindContext, sent, { fresh: !READS.has(c.req.method) });
  c.set("mindContext", session.mindContext);
  await next();
  if (c.res.status >= 400) return;
  session.remember();
  const bookmark = session.bookmark();
  if (bookmark !== null) c.header(BOOKMARK_HEADER, await sealBookmark(seal, bookmark));
});

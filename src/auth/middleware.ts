import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { readAuthConfig } from "../config";
import { forbidden, invalid, notFound, unauthorized } from "../errors";
import { authenticateMindKey, looksLikeMindKey } from "../minds/keys";
import { accountExists, getMind } from "../minds/minds";
import { verifyAccountToken } from "./jwt";
import { AGENT_PATTERN, DEFAULT_AGENT, type Principal } from "./principal";
import { secretsEqual } from "./secrets";

export { AGENT_PATTERN };

/** The bearer token of a request, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/** The operator's routes (the whole service, not one tenant): ADMIN_TOKEN only. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const presented = bearerToken(c.req.header("Authorization"));
  if (!presented || !(await secretsEqual(presented, readAuthConfig(c.env).adminToken))) throw unauthorized("admin token required");
  await next();
});

/** Accepts a human's JWT or a mind key; anything else is 401. */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw unauthorized();
  const deps = c.var.deps;
  let principal: Principal | null = null;
  if (looksLikeMindKey(token)) {
    principal = await authenticateMindKey(deps, token);
  } else {
    const accountId = await verifyAccountToken(readAuthConfig(c.env), token);
    if (accountId && (await accountExists(deps, accountId))) principal = { kind: "human", accountId };
  }
  if (!principal) throw unauthorized();
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

/**
 * Settles which mind and agent namespace a request works in. A mind key implies its mind
 * (and namespace, if scoped); a human names the mind with X-Mind-Id and must own it.
 * The namespace may be chosen with `?agent=`; a scoped key may not leave its own.
 */
export const requireScope = createMiddleware<AppEnv>(async (c, next) => {
  const principal = c.var.principal;
  const requestedMind = c.req.header("X-Mind-Id");
  const requestedAgent = c.req.query("agent");
  if (requestedAgent !== undefined && !AGENT_PATTERN.test(requestedAgent)) {
    throw invalid("agent: use 1-64 lower-case letters, digits, '-' or '_'");
  }

  let mindId: string;
  if (principal.kind !== "human") {
    if (requestedMind !== undefined && requestedMind !== principal.mindId) throw notFound("mind");
    mindId = principal.mindId;
  } else {
    if (!requestedMind) throw invalid("X-Mind-Id header is required with a human's token");
    mindId = (await getMind(c.var.deps, principal.accountId, requestedMind)).id;
  }

  const keyAgent = principal.kind !== "human" ? principal.agent : null;
  if (keyAgent !== null && requestedAgent !== undefined && requestedAgent !== keyAgent) {
    throw forbidden(`this key is limited to the agent namespace "${keyAgent}"`);
  }
  const agentFilter = keyAgent ?? requestedAgent ?? null;
  c.set("scope", { mindId, principal, agent: agentFilter ?? DEFAULT_AGENT, agentFilter });
  await next();
});

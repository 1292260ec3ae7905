import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { countWrite } from "../auth/middleware";
import { mcpAuthOf } from "../auth/oauth";
import { DEFAULT_AGENT, type Principal, type Scope } from "../auth/principal";
import { unauthorized } from "../errors";
import { useGrant } from "../minds/grants";
import { createMcpServer } from "./server";

/**
 * `/mcp`: Model Context Protocol over streamable HTTP, stateless (a server per request),
 * answering JSON. The OAuth provider in front has already checked the bearer token: a mind key,
 * or an access token of a client a person granted one mind (and maybe one namespace) to.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.all("/mcp", async (c) => {
  const principal = await principalOf(c.var.deps, c.executionCtx.props);
  if (!principal) throw unauthorized("/mcp needs a mind key or an OAuth access token");
  // Every MCP call is a POST: each counts as a write.
  await countWrite(c, principal);
  const agent = principal.agent;
  const scope: Scope = { mindId: principal.mindId, principal, agent: agent ?? DEFAULT_AGENT, agentFilter: agent };
  const server = createMcpServer({ deps: { ...c.var.deps, sessionObjects: c.env.SESSIONS }, scope });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});

/** The caller, from what the provider put on the context; a revoked grant stops here at once. */
async function principalOf(deps: AppEnv["Variables"]["deps"], props: unknown): Promise<Exclude<Principal, { kind: "human" }> | null> {
  const auth = mcpAuthOf(props);
  if (!auth) return null;
  if (auth.kind === "mind_key") return auth.principal.kind === "agent" ? auth.principal : null;
  const grant = await useGrant(deps, auth.grantId);
  if (!grant) return null;
  return { kind: "client", grantId: grant.id, clientName: grant.client_name, mindId: grant.mind_id, agent: grant.agent };
}

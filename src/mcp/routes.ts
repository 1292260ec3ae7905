import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { bearerToken } from "../auth/middleware";
import { DEFAULT_AGENT, type Scope } from "../auth/principal";
import { unauthorized } from "../errors";
import { authenticateMindKey, looksLikeMindKey } from "../minds/keys";
import { createMcpServer } from "./server";

/**
 * `/mcp`: Model Context Protocol over streamable HTTP, stateless (a server per request),
 * answering JSON. Only a mind key is accepted: it names the mind and the agent namespace.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.all("/mcp", async (c) => {
  const token = bearerToken(c.req.header("Authorization"));
  const principal = token && looksLikeMindKey(token) ? await authenticateMindKey(c.var.deps, token) : null;
  if (!principal || principal.kind !== "agent") throw unauthorized("/mcp needs a mind key as the Bearer token");
  const scope: Scope = { mindId: principal.mindId, principal, agent: principal.agent ?? DEFAULT_AGENT, agentFilter: principal.agent };
  const server = createMcpServer({ deps: { ...c.var.deps, sessionObjects: c.env.SESSIONS }, scope });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});

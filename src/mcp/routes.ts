import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { bearerToken } from "../auth/middleware";
import { unauthorized } from "../errors";
import { resolveMindContext } from "../minds/context";
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
  const mindContext = await resolveMindContext(c.var.deps, principal);
  const server = createMcpServer({ ...mindContext, sessionObjects: c.env.SESSIONS });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  return transport.handleRequest(c.req.raw);
});

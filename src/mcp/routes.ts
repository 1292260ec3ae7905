import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { BOOKMARK_HEADER, limitRequests } from "../auth/middleware";
import { mcpAuthOf } from "../auth/oauth";
import { readAuthConfig } from "../config";
import { unauthorized } from "../errors";
import { bookmarkSeal, openMindSession, readMindBookmark } from "../tenancy/bookmarks";
import { useGrant } from "../tenancy/grants";
import { resolveMindContext } from "../tenancy/mind-context";
import type { Principal } from "../tenancy/principal";
import { createMcpServer } from "./server";

/**
 * `/mcp`: Model Context Protocol over streamable HTTP, stateless (a server per request),
 * answering JSON. The OAuth provider in front has already checked the bearer token: a mind key,
 * or an access token of a client a person granted one mind (and maybe one namespace) to.
 */
export const mcpRoutes = new Hono<AppEnv>();

mcpRoutes.post("/mcp", async (c) => {
  const principal = await principalOf(c.var.deps, c.executionCtx.props);
  if (!principal) throw unauthorized("/mcp needs a mind key or an OAuth access token");
  const body = await c.req.raw.clone().text();
  // MCP 2025-06-18 removed JSON-RPC batches; accepting one would run many calls for one write.
  if (isBatch(body)) {
    return jsonRpcError(400, INVALID_REQUEST, "JSON-RPC batches are not supported (removed in MCP 2025-06-18): send one message per POST");
  }
  // Every MCP call is a POST of one message: each counts as a write.
  await limitRequests(c, principal);
  // A reading tool reads from a replica at least as new as the caller's last position seen here
  // (MCP clients send no bookmark); anything else starts at the primary, as a REST write does.
  const sent = await readMindBookmark(await bookmarkSeal(readAuthConfig(c.env).jwtSecret), c.req.header(BOOKMARK_HEADER));
  const session = openMindSession(await resolveMindContext(c.var.deps, principal), sent, {
    fresh: !READING_TOOLS.has(toolCalled(body) ?? ""),
  });
  const server = createMcpServer(session.mindContext);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  const res = await transport.handleRequest(c.req.raw);
  if (res.ok) session.remember();
  return res;
});

// Stateless: no stream for the server to send on (GET) and no session to end (DELETE).
mcpRoutes.on(["GET", "DELETE"], "/mcp", () =>
  jsonRpcError(405, SERVER_ERROR, "/mcp is stateless and offers no event stream or session: only POST", { Allow: "POST" }),
);

const INVALID_REQUEST = -32600;
const SERVER_ERROR = -32000;

/** Tools that only read: they may be answered from a replica. */
const READING_TOOLS = new Set(["memory_search", "memory_recall", "get_memory", "session_context"]);

/** The tool a `tools/call` message names, or null for any other message (or a body that is not one). */
function toolCalled(body: string): string | null {
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { name?: unknown } };
    return message.method === "tools/call" && typeof message.params?.name === "string" ? message.params.name : null;
  } catch {
    return null;
  }
}

/** A body that is a JSON array: a JSON-RPC batch. */
const isBatch = (body: string) => body.trimStart().startsWith("[");

/** An error in JSON-RPC's shape, as MCP clients read one (no request id: none was taken up). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

/** The caller, from what the provider put on the context; a revoked grant stops here at once. */
async function principalOf(deps: AppEnv["Variables"]["deps"], props: unknown): Promise<Exclude<Principal, { kind: "human" }> | null> {
  const auth = mcpAuthOf(props);
  if (!auth) return null;
  if (auth.kind === "mind_key") return auth.principal.kind === "agent" ? auth.principal : null;
  const grant = await useGrant(deps, auth.grantId);
  if (!grant) return null;
  return { kind: "client", grantId: grant.id, clientName: grant.client_name, mindId: grant.mind_id, agent: grant.agent };
}

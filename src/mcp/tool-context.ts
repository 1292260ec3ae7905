import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { appErrorOf } from "../errors";
import { logFailure } from "../observe/log";
import type { MindContext } from "../tenancy/mind-context";

/** A tool module: one tool, registered on a server for one request's caller. */
export type RegisterTool = (server: McpServer, mindContext: MindContext) => void;

/**
 * What a tool does to the mind, as MCP clients are told (every tool works in one mind: a closed
 * world). A client may run a read-only tool without asking, and asks before one that deletes.
 */
export const ANNOTATIONS = {
  reads: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  appends: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  /** Writes in place: what stood there is replaced; the same call again changes nothing more. */
  replaces: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  deletes: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
} as const satisfies Record<string, ToolAnnotations>;

/** A successful result: the compact value as its text (what a model reads), and as structured content. */
export function jsonResult(value: object, text = JSON.stringify(value)): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: value as Record<string, unknown> };
}

/** A failed call the model can read and act on; nothing internal leaks into it. */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Runs a tool body, turning domain errors into readable tool errors. */
export async function runTool(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    const known = appErrorOf(err);
    if (known) return errorResult(`${known.code}: ${known.message}`);
    logFailure("mcp_tool_failed", err);
    return errorResult("internal: the tool failed; try again later");
  }
}

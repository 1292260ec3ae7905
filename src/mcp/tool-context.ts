import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { appErrorOf } from "../errors";
import { logFailure } from "../observe/log";
import type { MindContext } from "../tenancy/mind-context";

/** A tool module: one tool, registered on a server for one request's caller. */
export type RegisterTool = (server: McpServer, mindContext: MindContext) => void;

/** A successful result: plain text for the model, the same value as structured JSON. */
export function jsonResult(value: object, text = JSON.stringify(value, null, 2)): CallToolResult {
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

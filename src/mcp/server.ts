import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { MindContext } from "../tenancy/mind-context";
import type { RegisterTool } from "./tool-context";
import { register as getMemory } from "./tools/get-memory";
import { register as memoryForget } from "./tools/memory-forget";
import { register as memoryRecall } from "./tools/memory-recall";
import { register as memorySearch } from "./tools/memory-search";
import { register as memoryStore } from "./tools/memory-store";
import { register as saveMemoryNote } from "./tools/save-memory-note";
import { register as sessionContext } from "./tools/session-context";
import { register as updateMemory } from "./tools/update-memory";

const TOOLS: RegisterTool[] = [
  saveMemoryNote,
  getMemory,
  updateMemory,
  memoryStore,
  memoryRecall,
  memorySearch,
  memoryForget,
  sessionContext,
];

/** An MCP server with every tool, bound to one caller's mind and namespace. */
export function createMcpServer(mindContext: MindContext): McpServer {
  const server = new McpServer(
    { name: "edgemind", version: "0.1.0" },
    { instructions: "Long-term memory of one mind. Read it with get_memory, add facts with save_memory_note." },
  );
  for (const register of TOOLS) register(server, mindContext);
  return server;
}

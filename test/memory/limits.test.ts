import { ARGUMENT_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { MEMORY_LIMITS } from "../../packages/client/src/generated/memory-shape";
import { RECALL_LIMIT, SEARCH_LIMIT } from "../../src/memory/limits";
import { call, newKey, newTenant, store } from "../helpers";
import { connectMcp } from "../support/mcp";

// One default and one maximum for each count, whichever front a caller comes through.

describe("count limits", () => {
  it("give a search without a limit the same number of results over REST and MCP", async () => {
    const tenant = await newTenant();
    const auth = { token: tenant.token, mind: tenant.mind.id };
    for (let i = 0; i < SEARCH_LIMIT.default + 3; i++) await store(auth, { key: `kettle_${i}`, content: `The kettle number ${i} whistles` });
    const rest = await call("GET", "/memory/search?q=kettle", auth);
    expect(rest.status).toBe(200);
    expect(rest.json.results).toHaveLength(SEARCH_LIMIT.default);

    const { key } = await newKey(tenant.token, tenant.mind.id);
    const client = await connectMcp(key);
    const mcp = (await client.callTool({ name: "memory_search", arguments: { q: "kettle" } })) as CallToolResult;
    expect((mcp.structuredContent as { results: unknown[] }).results).toHaveLength(SEARCH_LIMIT.default);
    const tooMany = (await client.callTool({ name: "memory_search", arguments: { q: "kettle", limit: SEARCH_LIMIT.max + 1 } })) as CallToolResult;
    expect(tooMany.isError).toBe(true);
    expect((await call("GET", `/memory/search?q=kettle&limit=${SEARCH_LIMIT.max + 1}`, auth)).status).toBe(400);
  });

  it("are what the client's tools say and send", () => {
    expect(MEMORY_LIMITS.search).toEqual(SEARCH_LIMIT);
    expect(MEMORY_LIMITS.recall).toEqual(RECALL_LIMIT);
    expect(ARGUMENT_DESCRIPTIONS.memory_search.limit).toContain(`Default ${SEARCH_LIMIT.default}`);
    expect(ARGUMENT_DESCRIPTIONS.memory_recall.limit).toContain(`default ${RECALL_LIMIT.default}`);
  });
});

import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { asSchema, type FlexibleSchema, generateText, stepCountIs, type ToolExecutionOptions } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { edgemindTools } from "../../packages/client/src/ai";
import { unique } from "../helpers";
import { connectMcp } from "../support/mcp";
import { BASE_URL, tenantClients, toWorker } from "./client-helpers";

const key = (base: string) => unique(base).replace(/-/g, "_");
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A tool's input schema as a model is shown it; the AI SDK adds `additionalProperties: false`, MCP leaves it out. */
function shownSchema(schema: unknown): unknown {
  const { additionalProperties: _strict, $schema: _dialect, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/** Runs a tool as the AI SDK would after a model's call, and answers its (not streamed) output. */
async function run<I, O>(tool: { execute: (input: I, options: ToolExecutionOptions<{}>) => AsyncIterable<O> | PromiseLike<O> | O }, input: I): Promise<O> {
  const output = await tool.execute(input, { toolCallId: "call_1", messages: [], context: {} });
  if (typeof output === "object" && output !== null && Symbol.asyncIterator in output) throw new Error("a streamed output");
  return output as O;
}

describe("edgemind's tools for the AI SDK", () => {
  it("are the MCP server's tools: the same names, descriptions, input and output schemas", async () => {
    const { key: mindKey } = await tenantClients();
    const tools = edgemindTools({ url: BASE_URL, key: mindKey, fetch: toWorker });
    const listed = (await (await connectMcp(mindKey)).listTools()).tools;

    expect(Object.keys(tools).sort()).toEqual(["memory_recall", "memory_search", "memory_store", "session_context"]);
    for (const [name, tool] of Object.entries(tools)) {
      const served = listed.find((t) => t.name === name);
      expect(served, name).toBeDefined();
      expect(tool.description, name).toBe(served!.description);
      expect(shownSchema(await asSchema(tool.inputSchema as FlexibleSchema<unknown>).jsonSchema), name).toEqual(shownSchema(served!.inputSchema));
      expect(shownSchema(await asSchema(tool.outputSchema as FlexibleSchema<unknown>).jsonSchema), name).toEqual(shownSchema(served!.outputSchema));
    }
  });

  it("answer what the MCP tools answer, compact, for the same memories", async () => {
    const { agent, key: mindKey } = await tenantClients();
    const tools = edgemindTools({ url: BASE_URL, key: mindKey, fetch: toWorker });
    const mcp = await connectMcp(mindKey);
    const k = key("kettle");
    await agent.memory.store({ category: "fact", key: k, content: "Owns a copper kettle", tags: ["kitchen"], priority: "high" });
    const { session } = await agent.sessions.create({ task_name: "kitchen" });
    await agent.sessions.addMessage(session.id, { role: "user", content: "What kettle do I own?" });
    const calls = [
      ["memory_search", { q: "kettle" }],
      ["memory_recall", { max_tokens: 200 }],
      ["session_context", { sessionId: session.id, q: "kettle" }],
    ] as const;
    for (const [name, input] of calls) {
      const served = await mcp.callTool({ name, arguments: input });
      expect(await run(tools[name] as { execute: (i: typeof input, o: ToolExecutionOptions<{}>) => unknown }, input), name).toEqual(served.structuredContent);
    }
    const [hit] = (await run(tools.memory_search, { q: "kettle" })).results;
    expect(hit).toMatchObject({ key: k, content: "Owns a copper kettle", tags: ["kitchen"], priority: "high", verified: false });
    expect(hit).not.toHaveProperty("mind_id");
    expect(hit).not.toHaveProperty("source");
  });

  it("store, search, recall and assemble a session's context in the key's mind", async () => {
    const { agent, key: mindKey } = await tenantClients();
    const tools = edgemindTools({ url: BASE_URL, key: mindKey, fetch: toWorker });
    const k = key("editor");

    const stored = await run(tools.memory_store, { category: "preference", key: k, content: "Uses Helix as the editor", tags: ["editor"] });
    expect(stored).toMatchObject({ created: true, memory: { key: k, verified: false } });
    const found = await run(tools.memory_search, { q: "editor" });
    expect(found.results.map((m) => m.key)).toEqual([k]);
    const recalled = await run(tools.memory_recall, { max_tokens: 200 });
    expect(recalled.text).toContain("Uses Helix as the editor");

    const { session } = await agent.sessions.create({ task_name: "setup" });
    await agent.sessions.addMessage(session.id, { role: "user", content: "Which editor do I use?" });
    const context = await run(tools.session_context, { sessionId: session.id, q: "editor" });
    expect(context.system).toContain("Uses Helix as the editor");
    expect(context.prompt).toContain("Which editor do I use?");
  });

  it("spread into generateText's tools, give a model memory: it searches, then answers from what it found", async () => {
    const { agent, key: mindKey } = await tenantClients();
    await agent.memory.store({ category: "fact", key: key("birthday"), content: "Birthday is on the 12th of March" });
    const seen: string[] = [];
    const model = new MockLanguageModelV4({
      doGenerate: async (call: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
        const results = call.prompt.flatMap((m) => (m.role === "tool" ? m.content : []));
        seen.push(...(call.tools ?? []).map((t) => t.name));
        if (results.length === 0) {
          return {
            content: [{ type: "tool-call", toolCallId: "call_1", toolName: "memory_search", input: JSON.stringify({ q: "birthday" }) }],
            finishReason: { unified: "tool-calls", raw: "tool_calls" },
            usage,
            warnings: [],
          };
        }
        const output = JSON.stringify(results);
        const answer = output.includes("12th of March") ? "Your birthday is on the 12th of March." : "I don't know.";
        return { content: [{ type: "text", text: answer }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
      },
    });

    const result = await generateText({
      model,
      tools: { ...edgemindTools({ url: BASE_URL, key: mindKey, fetch: toWorker }) },
      stopWhen: stepCountIs(3),
      prompt: "When is my birthday?",
    });
    expect(result.text).toBe("Your birthday is on the 12th of March.");
    expect(result.steps[0]!.toolCalls.map((c) => c.toolName)).toEqual(["memory_search"]);
    expect(new Set(seen)).toEqual(new Set(["memory_search", "memory_store", "memory_recall", "session_context"]));
  });
});

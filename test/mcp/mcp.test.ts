import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { call, newKey, newTenant, store, unique } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { coldOf, documentOf, writeColdAsConsolidation } from "../support/long-term";
import { connectMcp } from "../support/mcp";

async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
const data = (result: CallToolResult): any => {
  if (result.isError) throw new Error(`tool failed: ${textOf(result)}`);
  return result.structuredContent;
};

async function agentOfNewMind(agent?: string) {
  const tenant = await newTenant();
  const { key } = await newKey(tenant.token, tenant.mind.id, agent);
  return { ...tenant, key, client: await connectMcp(key) };
}

describe("MCP server", () => {
  it("lists every tool with a description and an input schema", async () => {
    const { client } = await agentOfNewMind();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["get_memory", "memory_forget", "memory_recall", "memory_search", "memory_store", "save_memory_note", "session_context", "update_memory"],
    );
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
    }
    const update = tools.find((t) => t.name === "update_memory")!;
    expect(update.inputSchema.required).toEqual(["text", "version"]);
  });

  it("declares what each tool does to the mind and the shape of its answer", async () => {
    const { client } = await agentOfNewMind();
    const { tools } = await client.listTools();
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe("object");
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint"] as const) expect(typeof t.annotations?.[hint], `${t.name} ${hint}`).toBe("boolean");
    }
    const readOnly = tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name).sort();
    expect(readOnly).toEqual(["get_memory", "memory_recall", "memory_search", "session_context"]);
    const destructive = tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name).sort();
    expect(destructive).toEqual(["memory_forget", "memory_store", "update_memory"]);
    expect(tools.find((t) => t.name === "save_memory_note")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  });

  it("answers compact for a model: no ids or fields it cannot use, scores rounded, dates to the minute, JSON without spaces", async () => {
    const { client, mind } = await agentOfNewMind();
    const result = await tool(client, "memory_store", { category: "preference", key: "tea", content: "Green tea, never coffee", tags: ["drinks"] });
    const text = textOf(result);
    expect(JSON.parse(text)).toEqual(result.structuredContent);
    const { memory } = data(result);
    expect(Object.keys(memory)).toEqual(["id", "category", "key", "content", "tags", "verified", "updated"]);
    expect(memory.updated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
    expect(text).not.toContain(mind.id);
    expect(text).not.toMatch(/": |, "/);
    const [hit] = data(await tool(client, "memory_search", { q: "tea" })).results;
    expect(hit).toMatchObject({ id: memory.id, key: "tea", verified: false });
    expect(String(hit.score).replace(/^0\.0*|e.*$|\./g, "").length).toBeLessThanOrEqual(3);
    expect(data(await tool(client, "save_memory_note", { text: "Drinks it at eight" }))).toEqual({ saved: true });
  });

  it("saves notes, reads and updates cold memory by compare-and-swap", async () => {
    const { client, token, mind } = await agentOfNewMind();
    expect(data(await tool(client, "save_memory_note", { text: "Prefers tea in the evening" }))).toEqual({ saved: true });
    const notes = await call("GET", "/notes", { token, mind: mind.id });
    expect(notes.json.notes.map((n: { text: string }) => n.text)).toEqual(["Prefers tea in the evening"]);

    expect(data(await tool(client, "get_memory"))).toMatchObject({ text: "", version: 0 });
    expect(data(await tool(client, "update_memory", { text: "## Preferences\n- tea", version: 0 }))).toMatchObject({ updated: true, version: 1 });
    expect(data(await tool(client, "get_memory"))).toMatchObject({ text: "## Preferences\n- tea", version: 1 });
    const cold = await call("GET", "/cold", { token, mind: mind.id });
    expect(cold.json).toMatchObject({ text: "## Preferences\n- tea", version: 1 });
  });

  it("answers a stale version with 'memory changed' and writes nothing", async () => {
    const { client } = await agentOfNewMind();
    data(await tool(client, "update_memory", { text: "v1", version: 0 }));
    data(await tool(client, "update_memory", { text: "v2", version: 1 }));
    const stale = await tool(client, "update_memory", { text: "lost?", version: 1 });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/memory changed.*version 2, not 1.*call get_memory again/is);
    expect(data(await tool(client, "get_memory"))).toMatchObject({ text: "v2", version: 2 });
  });

  it("update_memory shortens a document consolidations grew past COLD_MAX_CHARS, and refuses to grow it", async () => {
    const { client, mind } = await agentOfNewMind();
    const grown = await writeColdAsConsolidation(mind.id, documentOf(200_000));
    // 150,000 characters: a message past the ordinary 64 KB bound of a body.
    const shorter = documentOf(150_000);
    expect(data(await tool(client, "update_memory", { text: shorter, version: grown.version }))).toMatchObject({ updated: true, version: grown.version + 1 });
    expect((await coldOf(mind.id)).text).toBe(shorter);
    const longer = await tool(client, "update_memory", { text: `${shorter}- one more\n`, version: grown.version + 1 });
    expect(longer.isError).toBe(true);
    expect(textOf(longer)).toContain("at most 32,000 characters, or up to 256,000");
    expect((await coldOf(mind.id)).text).toBe(shorter);
  });

  it("folds a client consolidation's notes with update_memory and its consolidationId", async () => {
    const { client, key } = await agentOfNewMind();
    data(await tool(client, "save_memory_note", { text: "Lives in Tbilisi" }));
    const claim = await call("POST", "/cold/consolidations", { token: key, body: {} });
    expect(claim.json.notes).toHaveLength(1);
    const done = data(
      await tool(client, "update_memory", { text: "- lives in Tbilisi", version: 0, consolidationId: claim.json.consolidation_id }),
    );
    expect(done).toMatchObject({ updated: true, version: 1, folded_notes: 1 });
    expect((await call("GET", "/notes", { token: key })).json.total).toBe(0);
  });

  it("stores, recalls, searches and forgets structured memories", async () => {
    const { client, key } = await agentOfNewMind();
    const stored = data(
      await tool(client, "memory_store", { category: "preference", key: "coffee_order", content: "Любит кофе без сахара", tags: ["coffee"], priority: "high" }),
    );
    expect(stored).toMatchObject({ created: true, memory: { key: "coffee_order", tags: ["coffee"], verified: false, priority: "high" } });
    const recall = await tool(client, "memory_recall", {});
    expect(textOf(recall)).toContain("content: Любит кофе без сахара");
    expect(textOf(recall)).toContain("[unverified]");
    const found = data(await tool(client, "memory_search", { q: "кофейку любить" }));
    expect(found.results.map((r: { id: string }) => r.id)).toEqual([stored.memory.id]);
    expect(data(await tool(client, "memory_forget", { id: stored.memory.id }))).toEqual({ forgotten: 1 });
    expect((await call("GET", `/memory/${stored.memory.id}`, { token: key })).status).toBe(404);
    const again = await tool(client, "memory_forget", { id: stored.memory.id });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toBe("not_found: memory not found");
    const byKey = data(await tool(client, "memory_store", { category: "fact", key: "home_city", content: "Lives in Tbilisi" }));
    expect(data(await tool(client, "memory_forget", { id: "home_city" }))).toEqual({ forgotten: 1 });
    expect((await call("GET", `/memory/${byKey.memory.id}`, { token: key })).status).toBe(404);
  });

  it("forgets by key as documented, of one category when asked, in the caller's namespace only", async () => {
    const { client, token, mind } = await agentOfNewMind("coder");
    const editor = data(await tool(client, "memory_store", { category: "preference", key: "editor", content: "Uses Helix" }));
    const skill = data(await tool(client, "memory_store", { category: "skill", key: "editor", content: "Writes Helix plugins" }));
    const other = await agentOfNewMind();
    const { key: writerKey } = await newKey(token, mind.id, "writer");
    const writer = await connectMcp(writerKey);
    const theirs = data(await tool(writer, "memory_store", { category: "preference", key: "editor", content: "Uses Vim" }));

    expect(data(await tool(client, "memory_forget", { key: "editor", category: "skill" }))).toEqual({ forgotten: 1 });
    expect((await call("GET", `/memory/${skill.memory.id}`, { token, mind: mind.id })).status).toBe(404);
    expect((await call("GET", `/memory/${editor.memory.id}`, { token, mind: mind.id })).status).toBe(200);
    expect(data(await tool(client, "memory_forget", { key: "editor" }))).toEqual({ forgotten: 1 });
    expect((await call("GET", `/memory/${editor.memory.id}`, { token, mind: mind.id })).status).toBe(404);
    expect((await call("GET", `/memory/${theirs.memory.id}`, { token, mind: mind.id })).status).toBe(200);
    expect(textOf(await tool(other.client, "memory_forget", { key: "editor" }))).toBe("not_found: memory not found");

    const neither = await tool(client, "memory_forget", {});
    expect(neither.isError).toBe(true);
    expect(textOf(neither)).toBe("invalid_request: give either id or key");
    expect(textOf(await tool(client, "memory_forget", { id: theirs.memory.id, key: "editor" }))).toBe("invalid_request: give either id or key");
    // A key is only ever a key: one that happens to spell a memory's id forgets nothing.
    const kept = data(await tool(client, "memory_store", { category: "fact", key: "kept", content: "Stays" }));
    expect(textOf(await tool(client, "memory_forget", { key: kept.memory.id }))).toBe("not_found: memory not found");
    expect((await call("GET", `/memory/${kept.memory.id}`, { token, mind: mind.id })).status).toBe(200);
  });

  it("gives a session's assembled context: the LLM window without ephemeral output, search hits and cold memory", async () => {
    const { client, token, mind } = await agentOfNewMind();
    const auth = { token, mind: mind.id };
    const session = await openSession(auth);
    await append(auth, session.id, { content: "Deploy the worker" });
    await append(auth, session.id, { role: "tool", content: "tool dump 123", ephemeral: true, tool: "shell" });
    await append(auth, session.id, { role: "assistant", content: "Deployed" });
    data(await tool(client, "update_memory", { text: "Uses Cloudflare", version: 0 }));
    await tool(client, "memory_store", { category: "project", key: "deploy_region", content: "Workers deploy to the EU region" });
    const result = await tool(client, "session_context", { sessionId: session.id, q: "which region do workers deploy to?" });
    const context = data(result);
    expect(Object.keys(context).sort()).toEqual(["budget", "prompt", "system", "tokens"].concat(context.left_out ? ["left_out"] : []).sort());
    expect(context.prompt).toContain("Deploy the worker");
    expect(context.prompt).toContain("Deployed");
    expect(context.system).toContain("EU region");
    expect(context.system).toContain("Uses Cloudflare");
    expect(context.prompt).not.toContain("tool dump");
    expect(context.tokens).toBeLessThanOrEqual(context.budget);
    expect(textOf(result)).toContain("Uses Cloudflare");
    expect(textOf(result)).toContain("Deployed");
  });

  it("reads what holds now, as_of a past time, and with include_superseded the history, in search, recall and the context", async () => {
    const { client, token, mind } = await agentOfNewMind();
    const session = await openSession({ token, mind: mind.id });
    await tool(client, "memory_store", { category: "identity", key: "home_city", content: "Lives in Berlin", observed_at: "2023-05-21T10:00:00Z" });
    await tool(client, "memory_store", { category: "identity", key: "home_city", content: "Lives in Paris", observed_at: "2023-06-03T09:30:00Z" });
    const search = async (args: Record<string, unknown>) =>
      data(await tool(client, "memory_search", { q: "lives", ...args })).results.map((m: { content: string; replaced?: string }) => [m.content, m.replaced ?? null]);
    expect(await search({})).toEqual([["Lives in Paris", null]]);
    expect(await search({ as_of: "2023-05-30" })).toEqual([["Lives in Berlin", "2023-06-03T09:30Z"]]);
    expect(await search({ include_superseded: true })).toEqual([["Lives in Paris", null], ["Lives in Berlin", "2023-06-03T09:30Z"]]);
    const recall = data(await tool(client, "memory_recall", { as_of: "2023-05-30" })).text;
    expect(recall).toContain("content: Lives in Berlin\ndate: 21 May 2023");
    expect(recall).not.toContain("Paris");
    const context = async (args: Record<string, unknown>) => data(await tool(client, "session_context", { sessionId: session.id, q: "where do I live?", ...args })).system;
    expect(await context({})).not.toContain("Berlin");
    expect(await context({ as_of: "2023-05-30" })).not.toContain("Paris");
    expect(await context({ include_superseded: true })).toContain("[replaced 3 Jun 2023] home_city: Lives in Berlin");
  });

  it("keeps tenants apart: another mind's session and memory are not found", async () => {
    const owner = await agentOfNewMind();
    const other = await agentOfNewMind();
    const session = await openSession({ token: owner.token, mind: owner.mind.id });
    const memory = await store({ token: owner.key }, { key: unique("k").replaceAll("-", "_"), content: "secret" });
    const answer = await tool(other.client, "session_context", { sessionId: session.id });
    expect(textOf(answer)).toBe("not_found: session not found");
    const note = await tool(other.client, "save_memory_note", { text: "x", sessionId: session.id });
    expect(note.isError).toBe(true);
    const forget = await tool(other.client, "memory_forget", { id: memory.id });
    expect(textOf(forget)).toBe("not_found: memory not found");
    expect((await call("GET", `/memory/${memory.id}`, { token: owner.key })).status).toBe(200);
    expect(data(await tool(other.client, "memory_search", { q: "secret" })).results).toEqual([]);
  });

  it("rejects invalid arguments without writing", async () => {
    const { client, key } = await agentOfNewMind();
    const bad = await tool(client, "memory_store", { category: "nonsense", key: "Not Snake", content: "" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/category|key|content/);
    expect((await call("GET", "/memory", { token: key })).json.total).toBe(0);
  });

  it("refuses a bad key, a revoked key and a human's token with 401", async () => {
    await expect(connectMcp("emk_nothing.wrong")).rejects.toThrow(/401|mind key/);
    const tenant = await newTenant();
    const { id, key } = await newKey(tenant.token, tenant.mind.id);
    await call("DELETE", `/minds/${tenant.mind.id}/keys/${id}`, { token: tenant.token });
    await expect(connectMcp(key)).rejects.toThrow(/401|mind key/);
    const res = await call("POST", "/mcp", {
      token: tenant.token,
      headers: { Accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("unauthorized");
  });
});

describe("MCP transport (stateless streamable HTTP)", () => {
  const accept = { Accept: "application/json, text/event-stream" };
  const saveNote = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "save_memory_note", arguments: { text: `Batched note ${id}` } } });

  it("runs one tool call per POST", async () => {
    const { key, token, mind } = await agentOfNewMind();
    const res = await call("POST", "/mcp", { token: key, headers: accept, body: saveNote(1) });
    expect(res.status).toBe(200);
    expect(res.json.result.isError).not.toBe(true);
    expect((await call("GET", "/notes", { token, mind: mind.id })).json.notes).toHaveLength(1);
  });

  it("refuses a JSON-RPC batch with a 400 JSON-RPC error before any of its calls runs", async () => {
    const { key, token, mind } = await agentOfNewMind();
    const res = await call("POST", "/mcp", { token: key, headers: accept, body: [saveNote(1), saveNote(2), saveNote(3)] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(res.json.error.message).toMatch(/batch/i);
    expect((await call("GET", "/notes", { token, mind: mind.id })).json.notes).toHaveLength(0);
  });

  it("answers GET (no event stream) and DELETE (no session) with 405 and Allow: POST", async () => {
    const { key } = await agentOfNewMind();
    for (const method of ["GET", "DELETE"]) {
      const res = await call(method, "/mcp", { token: key, headers: { Accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("Allow"), method).toBe("POST");
      expect(res.json.error.message).toMatch(/only POST/);
    }
  });
});

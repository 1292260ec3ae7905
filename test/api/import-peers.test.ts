import { describe, expect, it } from "vitest";
import { acceptImport, runImport } from "../../src/portability/import/imports";
import { call, followImport, newMind, newTenant } from "../helpers";
import lettaV1 from "../portability/fixtures/letta-v1-memgpt-agent.af?raw";
import lettaV2 from "../portability/fixtures/letta-v2-garden-companion.af?raw";
import lettaPassages from "../portability/fixtures/letta-v2-with-passages.af?raw";
import mem0V10 from "../portability/fixtures/mem0-get-all-v1.0.json?raw";
import mem0V11 from "../portability/fixtures/mem0-get-all-v1.1.json?raw";
import mem0Export from "../portability/fixtures/mem0-platform-export.json?raw";
import mem0V3 from "../portability/fixtures/mem0-platform-v3-page.json?raw";
import { testDeps } from "../support/deps";
import { mindState } from "../support/mind-state";
import { lettaLongConversation, mem0Thousand, namespaceOf } from "../support/peer-exports";
import { dataOf } from "../support/shards";

// Imports from peers: a mem0 export and a Letta Agent File go through the one import, each
// memory, block and message accounted for in the import's counts and in the mind's rows.

type Auth = { token: string; mind: string };
const TABLES = { memories: "memories", memory_history: "memory_history", notes: "notes", cold_memory: "cold_memory", cold_versions: "cold_versions", chats: "chats", sessions: "sessions", messages: "messages" };

const post = (auth: Auth, body: string, query = "", contentType = "application/json") =>
  call("POST", `/minds/${auth.mind}/import${query}`, { token: auth.token, rawBody: body, headers: { "Content-Type": contentType } });

async function freshMind(): Promise<Auth> {
  const t = await newTenant();
  return { token: t.token, mind: t.mind.id };
}

/** Rows the mind holds per table, as the import's counts name them. */
async function rowsOf(mindId: string): Promise<Record<string, number>> {
  const db = await dataOf(mindId);
  const rows: Record<string, number> = {};
  for (const [name, table] of Object.entries(TABLES)) rows[name] = (await db.prepare(`select count(*) as n from ${table} where mind_id = ?`).bind(mindId).first<{ n: number }>())!.n;
  return rows;
}

const nothingElse = { memories: 0, memory_history: 0, notes: 0, cold_memory: 0, cold_versions: 0, chats: 0, sessions: 0, messages: 0 };

describe("a mem0 export", () => {
  it("of 1,000 memories lands with every memory accounted for: its namespace, text, tags, context, time and an import in its history", async () => {
    const auth = await freshMind();
    const file = mem0Thousand();
    const res = await post(auth, JSON.stringify(file), "?format=mem0");
    expect(res.status, res.text).toBe(200);
    const receipt = { ...nothingElse, memories: 1000, memory_history: 1000 };
    expect(res.json.imported).toEqual(receipt);
    expect(await rowsOf(auth.mind)).toEqual(receipt);

    const db = await dataOf(auth.mind);
    const { results: stored } = await db
      .prepare("select agent, key, category, content, tags, context, created_at, updated_at, expires_at, priority, source, verified from memories where mind_id = ?")
      .bind(auth.mind)
      .all<Record<string, string | number | null>>();
    expect(new Set(stored.map((m) => m.key)).size).toBe(1000);
    const byText = new Map(stored.map((m) => [`${m.agent}\u0000${m.content}`, m]));
    for (const entry of file.results) {
      const m = byText.get(`${namespaceOf(entry)}\u0000${entry.memory}`);
      expect(m, entry.memory).toBeDefined();
      expect(m!.created_at).toBe(new Date(entry.created_at).toISOString());
      expect(JSON.parse(String(m!.tags))).toEqual(entry.categories.map((c) => c.toLowerCase()));
      expect(String(m!.context)).toContain(JSON.stringify(entry.metadata));
      expect(m!.priority).toBe(entry.replaced_by ? "low" : "normal");
      expect({ source: m!.source, verified: m!.verified }).toEqual({ source: "agent", verified: 0 });
    }
    const history = await db
      .prepare("select h.action, h.actor, h.changes, m.category from memory_history h join memories m on m.id = h.memory_id where h.mind_id = ?")
      .bind(auth.mind)
      .all<{ action: string; actor: string; changes: string; category: string }>();
    expect(history.results).toHaveLength(1000);
    for (const h of history.results) expect({ ...h, changes: JSON.parse(h.changes) }).toEqual({ action: "import", actor: "import:mem0", changes: { category: [null, h.category] }, category: h.category });
  });

  it("in each published shape lands whole: get_all v1.1, the v1.0 list, the platform's page and its export", async () => {
    for (const [name, text, entries] of [["v1.1", mem0V11, 6], ["v1.0", mem0V10, 3], ["v3 page", mem0V3, 4], ["export", mem0Export, 3]] as const) {
      const auth = await freshMind();
      // The media type names the format on its own.
      const res = await post(auth, text, "", "application/vnd.mem0+json");
      expect(res.status, `${name}: ${res.text}`).toBe(200);
      expect(res.json.imported, name).toEqual({ ...nothingElse, memories: entries, memory_history: entries });
    }
  });

  it("maps mem0's fields: agent_id over user_id, expiration dates, a replaced memory ranked low, and the mind's settings left alone", async () => {
    const auth = await freshMind();
    expect((await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { settings: { llm_window: 7 } } })).status).toBe(200);
    expect((await post(auth, mem0V3, "?format=mem0")).status).toBe(200);
    const list = await call("GET", "/memory", { token: auth.token, mind: auth.mind });
    const byText = new Map<string, Record<string, any>>(list.json.memories.map((m: Record<string, any>) => [m.content, m]));
    expect(byText.get("Prefers aisle seats on flights longer than three hours")).toMatchObject({ agent: "travel-agent", tags: ["travel", "preferences"] });
    expect(byText.get("Has a Global Entry membership that expires in 2027")).toMatchObject({ expires_at: "2027-03-02T00:00:00.000Z" });
    expect(byText.get("User lives in New York")).toMatchObject({ agent: "sam", priority: "low" });
    const replaced = await call("GET", `/memory/${byText.get("User lives in New York")!.id}?include=context`, { token: auth.token, mind: auth.mind });
    expect(replaced.json.context).toContain("replaced_by a1b2c3d4-0001-4000-8000-000000000001");
    expect((await call("GET", `/minds/${auth.mind}`, { token: auth.token })).json.settings.llm_window).toBe(7);
  });

  it("is counted against the mind's quotas before anything is written", async () => {
    const auth = await freshMind();
    expect((await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { settings: { max_memories: 5 } } })).status).toBe(200);
    const res = await post(auth, mem0V11, "?format=mem0");
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: "quota_exceeded" });
    expect(await rowsOf(auth.mind)).toEqual(nothingElse);
  });

  it("that fails while it writes is undone, leaving the mind as it was", async () => {
    const t = await newTenant();
    const archiveImport = (await acceptImport(testDeps(), t.accountId, t.mind.id, [new TextEncoder().encode(mem0V11)], "mem0")).archiveImport;
    // Checked and staged within the quota; meanwhile the mind's owner lowers it.
    let steps = 0;
    expect(await runImport(testDeps(), t.mind.id, archiveImport.id, () => steps++ < 1)).toMatchObject({ state: "queued", counts: { memories: 6, memory_history: 6 } });
    expect((await call("PATCH", `/minds/${t.mind.id}`, { token: t.token, body: { settings: { max_memories: 3 } } })).status).toBe(200);
    const start = await mindState(t.mind.id);
    expect(await runImport(testDeps(), t.mind.id, archiveImport.id, () => true)).toMatchObject({ state: "failed", error: { code: "quota_exceeded" } });
    expect(await mindState(t.mind.id)).toEqual(start);
  });

  it("over a megabyte answers 202 and is written in the background, followed like any import", async () => {
    const auth = await freshMind();
    const file = mem0Thousand(4000, 200);
    const body = JSON.stringify(file);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await post(auth, body, "?format=mem0");
    expect(res.status, res.text).toBe(202);
    const done = await followImport(auth.mind, auth.token, res);
    expect(done.json).toMatchObject({ state: "done", counts: { memories: 4000, memory_history: 4000 }, error: null });
    expect(await rowsOf(auth.mind)).toEqual({ ...nothingElse, memories: 4000, memory_history: 4000 });
  }, 120_000);
});

describe("a Letta Agent File", () => {
  it("v2 with two agents lands every block as a section of its agent's cold memory and every message in its agent's session", async () => {
    const auth = await freshMind();
    const res = await post(auth, lettaV2, "?format=letta");
    expect(res.status, res.text).toBe(200);
    const receipt = { ...nothingElse, cold_memory: 2, cold_versions: 2, chats: 2, sessions: 2, messages: 13 };
    expect(res.json.imported).toEqual(receipt);
    expect(await rowsOf(auth.mind)).toEqual(receipt);

    const file = JSON.parse(lettaV2);
    const labels = new Map(file.blocks.map((b: { id: string; label: string }) => [b.id, b.label]));
    for (const [agent, namespace] of [[file.agents[0], "fern"], [file.agents[1], "fern-sleeptime"]]) {
      const cold = (await call("GET", `/cold?agent=${namespace}`, { token: auth.token, mind: auth.mind })).json;
      expect(cold.version).toBe(1);
      const headings = cold.text.split("\n").filter((l: string) => l.startsWith("## ")).map((l: string) => l.slice(3));
      expect(headings).toEqual(agent.block_ids.map((id: string) => labels.get(id)));
    }
    const fern = (await call("GET", "/cold?agent=fern", { token: auth.token, mind: auth.mind })).json.text;
    // A heading inside a block's value stays in its block.
    expect(fern).toContain("## human\nName: Morag\nGardens in Edinburgh (allotment, 4 beds)\nBeds: A (herbs)\n\n**Dislikes**\n- slugs");

    const chats = (await call("GET", "/chats", { token: auth.token, mind: auth.mind })).json.chats;
    const session = chats.find((c: { agent: string }) => c.agent === "fern").active_session_id;
    const ui = (await call("GET", `/sessions/${session}/messages?channel=ui&limit=100`, { token: auth.token, mind: auth.mind })).json.messages;
    expect(ui.map((m: { role: string }) => m.role)).toEqual(file.agents[0].messages.map((m: { role: string }) => m.role));
    expect(ui.filter((m: { ephemeral: boolean }) => m.ephemeral).map((m: { tool: string }) => m.tool)).toEqual(["memory_insert", "check_frost_forecast"]);
    expect(ui[2].content).toBe('→ memory_insert({"label": "garden_log", "new_str": "- 2026-05-04: three rows of garlic, bed B", "insert_line": -1})');
    expect(ui[7].content).toBe('{"last_frost": "2026-05-12", "confidence": 0.8}');
    expect(ui[5]).toMatchObject({ role: "user", content: "When is the last frost here?", created_at: "2026-05-05T07:15:00.000Z" });
    // The conversation was the agent's own: extraction does not read it again.
    const state = (await call("GET", `/sessions/${session}`, { token: auth.token, mind: auth.mind })).json;
    expect(state.extracted_through_message_id).toBe(Math.max(...ui.map((m: { id: number }) => m.id)));
  });

  it("v1 lands its core memory, its conversation with times in UTC, and its tool output named by the call it answers", async () => {
    const auth = await freshMind();
    const res = await post(auth, lettaV1, "", "application/vnd.letta.agent-file+json");
    expect(res.status, res.text).toBe(200);
    expect(res.json.imported).toEqual({ ...nothingElse, cold_memory: 1, cold_versions: 1, chats: 1, sessions: 1, messages: 10 });
    const cold = (await call("GET", "/cold?agent=tully", { token: auth.token, mind: auth.mind })).json.text;
    expect(cold).toContain("## human\nFirst name: Dana");
    expect(cold).toContain("## persona\nI am Tully.");
    const chat = (await call("GET", "/chats", { token: auth.token, mind: auth.mind })).json.chats[0];
    const ui = (await call("GET", `/sessions/${chat.active_session_id}/messages?channel=ui`, { token: auth.token, mind: auth.mind })).json.messages;
    expect(ui).toHaveLength(10);
    expect(ui[0].created_at).toBe("2025-04-02T10:00:00.100Z");
    expect(ui.filter((m: { ephemeral: boolean }) => m.ephemeral).map((m: { tool: string }) => m.tool)).toEqual(["send_message", "core_memory_append", "send_message"]);
  });

  it("with archival passages lands them as memories of its agent, and a block no agent names in the first agent's cold memory", async () => {
    const auth = await freshMind();
    const res = await post(auth, lettaPassages, "?format=letta");
    expect(res.status, res.text).toBe(200);
    expect(res.json.imported).toEqual({ ...nothingElse, memories: 3, memory_history: 3, cold_memory: 1, cold_versions: 1, chats: 1, sessions: 1, messages: 9 });
    const memories = (await call("GET", "/memory?agent=fern", { token: auth.token, mind: auth.mind })).json.memories;
    const allotment = memories.find((m: { content: string }) => m.content.startsWith("Morag's allotment"));
    expect(allotment).toMatchObject({ tags: ["allotment", "location"], created_at: "2026-04-21T09:00:00.000Z" });
    const withContext = await call("GET", `/memory/${allotment.id}?include=context`, { token: auth.token, mind: auth.mind });
    expect(withContext.json.context).toBe('{"source":"archival_memory_insert"}\nletta passage passage-0');
    expect((await call("GET", "/cold?agent=fern", { token: auth.token, mind: auth.mind })).json.text).toContain("## memory_persona");
  });
  it("over a megabyte answers 202 and is written in the background, every message in its agent's session and each tool's output ephemeral", async () => {
    const auth = await freshMind();
    const file = lettaLongConversation(JSON.parse(lettaV2), 250, 4000);
    const body = JSON.stringify(file, null, 2);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await post(auth, body, "?format=letta");
    expect(res.status, res.text).toBe(202);
    const done = await followImport(auth.mind, auth.token, res);
    const receipt = { ...nothingElse, cold_memory: 2, cold_versions: 2, chats: 2, sessions: 2, messages: 750 + file.agents[1].messages.length };
    expect(done.json).toMatchObject({ state: "done", counts: receipt, error: null });
    expect(await rowsOf(auth.mind)).toEqual(receipt);
    const db = await dataOf(auth.mind);
    const asked = await db
      .prepare("select ephemeral, count(*) as n from messages where mind_id = ? and (tool = 'check_seedlings' or content like 'Bed %') group by ephemeral order by ephemeral")
      .bind(auth.mind)
      .all<{ ephemeral: number; n: number }>();
    expect(asked.results).toEqual([{ ephemeral: 0, n: 250 }, { ephemeral: 1, n: 250 }]);
  }, 120_000);

  it("is counted against the mind's quotas before anything is written: its passages against max_memories", async () => {
    const auth = await freshMind();
    expect((await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { settings: { max_memories: 2 } } })).status).toBe(200);
    const res = await post(auth, lettaPassages, "?format=letta");
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: "quota_exceeded" });
    expect(await rowsOf(auth.mind)).toEqual(nothingElse);
  });
});

describe("a peer's file that is malformed or not what was said", () => {
  it("answers 400 naming the line or the field by its path, and writes nothing", async () => {
    const v11 = JSON.parse(mem0V11);
    const v2 = JSON.parse(lettaV2);
    const mutated = (value: unknown, change: (copy: any) => void) => {
      const copy = structuredClone(value);
      change(copy);
      return JSON.stringify(copy, null, 2);
    };
    const cases: [string, string, string, RegExp][] = [
      ["mem0 syntax", "mem0", '{"results": [\n  {"memory": "a"}\n  {"memory": "b"}\n]}', /^mem0 export: line 3, column 3 \(at results\): expected ',' or '\]'/],
      ["mem0 entry without text", "mem0", mutated(v11, (f) => delete f.results[2].memory), /^mem0 export: results\[2\] \(line \d+\): memory: required/],
      ["mem0 categories not a list", "mem0", mutated(v11, (f) => (f.results[1].categories = "food")), /^mem0 export: results\[1\] \(line \d+\): categories: /],
      ["mem0 time", "mem0", mutated(v11, (f) => (f.results[0].created_at = "last tuesday")), /^mem0 export: results\[0\] \(line \d+\): created_at: not an ISO 8601 date or time/],
      ["mem0 truncated", "mem0", mem0V11.slice(0, 300), /^mem0 export: line 11, column 2 \(at results\[0\]\): the file ends before its JSON does/],
      ["letta role", "letta", mutated(v2, (f) => (f.agents[0].messages[3].role = "robot")), /^Letta agent file: agents\[0\]\.messages\[3\] \(line \d+\): role: "robot" is not one of Letta's roles/],
      ["letta missing block", "letta", mutated(v2, (f) => f.agents[1].block_ids.push("block-99")), /^Letta agent file: agents\[1\]\.block_ids\[4\] \(line \d+\): no block with id "block-99" in blocks/],
      ["letta block value", "letta", mutated(v2, (f) => (f.blocks[1].value = 42)), /^Letta agent file: blocks\[1\] \(line \d+\): value: /],
      ["letta key twice", "letta", lettaV2.replace('"name": "Fern",', '"name": "Fern", "name": "Bracken",'), /^Letta agent file: line \d+, column \d+ \(at agents\[0\]\): the key "name" is given twice in one object/],
      ["an archive said to be mem0", "mem0", '{"type":"header","format":"edgemind-mind"}\n{"type":"memory"}\n', /^expected a mem0 export: a JSON list of memories, or an object with a results .* \(mem0 export: line 2, column 1: more text after the JSON value/],
      ["mem0 said to be letta", "letta", mem0V11, /^expected a Letta Agent File: /],
      ["letta said to be mem0", "mem0", lettaV2, /^expected a mem0 export: /],
    ];
    for (const [name, format, body, message] of cases) {
      const auth = await freshMind();
      const res = await post(auth, body, `?format=${format}`);
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.json.error.code, name).toBe("invalid_request");
      expect(res.json.error.message, name).toMatch(message);
      expect(await rowsOf(auth.mind), name).toEqual(nothingElse);
    }
  });

  it("over a megabyte fails in the background with the same message, and writes nothing", async () => {
    const auth = await freshMind();
    const file = mem0Thousand(4000, 200);
    Object.assign(file.results[3500]!, { categories: "food" });
    const res = await post(auth, JSON.stringify(file, null, 1), "?format=mem0");
    expect(res.status).toBe(202);
    const ended = await followImport(auth.mind, auth.token, res);
    expect(ended.json.state).toBe("failed");
    expect(ended.json.error.message).toMatch(/^mem0 export: results\[3500\] \(line \d+\): categories: /);
    expect(await rowsOf(auth.mind)).toEqual(nothingElse);
  }, 120_000);

  it("is refused when the format is not said, said twice differently, or unknown", async () => {
    const auth = await freshMind();
    const cases: [string, string, RegExp][] = [
      ["", "application/json", /^a JSON body is a mem0 export or a Letta Agent File: say which with \?format=mem0 or \?format=letta/],
      ["?format=letta", "application/vnd.mem0+json", /^format: the Content-Type application\/vnd\.mem0\+json says mem0, but format=letta/],
      ["?format=zep", "application/json", /format/],
    ];
    for (const [query, contentType, message] of cases) {
      const res = await post(auth, mem0V11, query, contentType);
      expect(res.status, `${query} ${contentType}`).toBe(400);
      expect(res.json.error.message).toMatch(message);
    }
    // A peer's file sent as the archive (by its media type, or with none said) is refused naming what was expected.
    for (const contentType of ["application/x-ndjson", "application/x-www-form-urlencoded"]) {
      for (const [name, file] of [["mem0", mem0V11], ["letta", lettaV2]] as const) {
        const res = await post({ ...auth, mind: (await newMind(auth.token)).id }, file, "", contentType);
        expect(res.status, `${name} as ${contentType}`).toBe(400);
        expect(res.json.error.message, name).toMatch(/^expected edgemind's archive: JSON lines, .* said with \?format=mem0 or \?format=letta, .* \(line 1: not valid JSON\)$/);
      }
    }
    // The archive stays the default: an empty body is still an archive (with no header).
    const archive = await post({ ...auth, mind: (await newMind(auth.token)).id }, "", "", "application/x-ndjson");
    expect(archive.json.error.message).toBe("the archive is empty");
  });
});

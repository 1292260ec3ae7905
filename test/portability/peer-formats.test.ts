import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors";
import { IMPORT_MAX_LINES } from "../../src/portability/archive";
import { checkImportFile, importFormatOf } from "../../src/portability/import/formats";
import { fromLetta } from "../../src/portability/import/from-letta";
import { fromMem0 } from "../../src/portability/import/from-mem0";
import { ArchiveOutput, Namespaces, PeerMemories, peerTags, peerTime } from "../../src/portability/import/peer-lines";
import { MAX_MESSAGE_CHARS } from "../../src/sessions/rows";

// How a peer's fields become edgemind's: times, namespaces, tags, keys, and Letta's messages.

const NOW = "2026-12-07T10:00:00.000Z";
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const linesOf = (archive: Uint8Array) => new TextDecoder().decode(archive).trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
const refusalOf = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("not refused");
};

describe("a peer's fields, as edgemind keeps them", () => {
  it("reads times as peers write them: an offset kept, none is UTC, a date alone is its midnight", () => {
    expect(peerTime("2026-03-02T08:14:51.208311+00:00")).toBe("2026-03-02T08:14:51.208Z");
    expect(peerTime("2025-02-10T09:31:02.118420-08:00")).toBe("2025-02-10T17:31:02.118Z");
    expect(peerTime("2025-04-02T10:00:00.1")).toBe("2025-04-02T10:00:00.100Z");
    expect(peerTime("2025-04-02 10:00:00+0300")).toBe("2025-04-02T07:00:00.000Z");
    expect(peerTime("2025-04-02T10:00")).toBe("2025-04-02T10:00:00.000Z");
    expect(peerTime("2027-03-01")).toBe("2027-03-01T00:00:00.000Z");
    for (const bad of ["yesterday", "2025-13-40", "1743580800", "2025-04-02T25:00:00Z", ""]) expect(peerTime(bad), bad).toBeNull();
  });

  it("names a namespace after each id, a different one for every id however they are written", () => {
    const namespaces = new Namespaces();
    expect(["alice", "Alice", "bob@example.com", "Nameless Agent-sleeptime", "Алиса", "", null].map((id) => namespaces.of(id))).toEqual([
      "alice", "alice-2", "bob-example-com", "nameless-agent-sleeptime", expect.stringMatching(/^id-[0-9a-z]+$/), "default", "default",
    ]);
    expect(namespaces.of("alice")).toBe("alice");
    expect(namespaces.of("x".repeat(100))).toHaveLength(64);
  });

  it("keeps labels as tags a memory may hold", () => {
    expect(peerTags(["Food", "food", " travel, local ", "x".repeat(50), "", ..."abcdefghij"])).toEqual(["food", "travel  local", "x".repeat(40), "a", "b", "c", "d", "e", "f", "g"]);
    expect(peerTags([`${"x".repeat(39)}😀`])).toEqual(["x".repeat(39)]);
  });

  it("keys each fact from its words, unique within the mind, and records the guessed category as an import", async () => {
    const memories = new PeerMemories("import:test", NOW);
    const fact = { agent: "alice", tags: [], context: "", stated_at: "2026-01-01T00:00:00.000Z", updated_at: "2025-01-01T00:00:00.000Z", expires_at: null, priority: "normal" as const };
    const [first, history] = await memories.lines({ ...fact, content: "I prefer green tea" });
    const [again] = await memories.lines({ ...fact, agent: "bob", content: "I prefer green tea" });
    const [long] = await memories.lines({ ...fact, content: "word ".repeat(60) });
    const [longAgain] = await memories.lines({ ...fact, content: "word ".repeat(60) });
    expect([first.key, again.key, first.category]).toEqual(["green_tea", "green_tea_2", "preference"]);
    expect(long.key.length).toBeLessThanOrEqual(100);
    expect(longAgain.key).toMatch(/_2$/);
    expect(longAgain.key.length).toBeLessThanOrEqual(100);
    // An update before the statement cannot be: the memory was updated when it was stated.
    expect(first).toMatchObject({ created_at: fact.stated_at, updated_at: fact.stated_at, source: "agent", verified: false });
    expect(history).toEqual({ type: "memory_history", memory_id: first.id, action: "import", actor: "import:test", old_content: null, new_content: "I prefer green tea", at: NOW, changes: { category: [null, "preference"] } });
  });

  it("holds a peer's archive within the archive's bounds, naming the file", () => {
    const out = new ArchiveOutput("mem0 export");
    const line = { type: "note", id: "n", agent: "default", session_id: null, text: "x", category_hint: null, source: "user", confidence: 1, created_at: NOW } as const;
    for (let i = 0; i < IMPORT_MAX_LINES; i++) out.add(line);
    expect(() => out.add(line)).toThrow(`mem0 export: it comes to more than the ${IMPORT_MAX_LINES} rows one import writes`);
  });

  it("says which format a body is from its media type or ?format=", () => {
    expect(importFormatOf("application/x-ndjson; charset=utf-8", undefined)).toBe("archive");
    expect(importFormatOf(null, null)).toBe("archive");
    expect(importFormatOf("application/json", "letta")).toBe("letta");
    expect(importFormatOf("Application/Vnd.Mem0+JSON", "mem0")).toBe("mem0");
    expect(importFormatOf("text/plain", "mem0")).toBe("mem0");
    expect(() => importFormatOf("application/json", undefined)).toThrow(/say which with \?format=mem0 or \?format=letta/);
    expect(() => importFormatOf("application/x-ndjson", "mem0")).toThrow("format: the Content-Type application/x-ndjson says archive, but format=mem0: send one, or both the same");
    expect(() => importFormatOf(null, "zep")).toThrow("format: expected one of archive, mem0, letta");
  });
});

describe("a mem0 export", () => {
  it("refuses an entry whose text is empty or longer than a memory holds, naming it", async () => {
    expect((await refusalOf(fromMem0(json([{ memory: "  " }]), NOW))).message).toBe("mem0 export: [0] (line 1): memory: the text is empty");
    expect((await refusalOf(fromMem0(json({ results: [{ memory: "ok" }, { memory: "x".repeat(8001) }] }), NOW))).message).toBe(
      "mem0 export: results[1] (line 1): memory: the text is 8001 characters; a memory holds at most 8000",
    );
  });

  it("takes a memory's time from created_at, else updated_at, else the import's", async () => {
    const lines = linesOf(await fromMem0(json([{ memory: "a" }, { memory: "b", updated_at: "2026-02-01T00:00:00Z" }]), NOW));
    expect(lines.filter((l) => l.type === "memory").map((l) => l.created_at)).toEqual([NOW, "2026-02-01T00:00:00.000Z"]);
  });
});

describe("a Letta agent file", () => {
  const agentFile = (messages: unknown[]) => json({ agents: [{ id: "agent-0", name: "Ada", block_ids: [], messages }], blocks: [], tools: [] });

  it("cuts a message longer than edgemind keeps, saying how much was left out", async () => {
    const lines = linesOf(await fromLetta(agentFile([{ role: "system", content: [{ type: "text", text: "s".repeat(100_000) }] }]), NOW));
    const message = lines.find((l) => l.type === "message")!;
    expect(message.content).toHaveLength(MAX_MESSAGE_CHARS - 60 + `\n… [${100_000 - (MAX_MESSAGE_CHARS - 60)} more characters not imported]`.length);
    expect(message.content).toMatch(/\n… \[68060 more characters not imported\]$/);
  });

  it("maps Letta's roles, and takes a message's time from the one before when it has none", async () => {
    const lines = linesOf(await fromLetta(agentFile([
      { role: "user", content: "hi", created_at: "2026-01-01T00:00:00Z" },
      { role: "approval", content: [{ type: "text", text: "approved" }] },
      { role: "summary", content: [{ type: "text", text: "earlier: talked about tea" }] },
      { role: "function", content: [{ type: "tool_return", tool_call_id: "t", content: "42", is_error: false }], name: "calc" },
    ]), NOW));
    expect(lines.filter((l) => l.type === "message").map((l) => [l.role, l.content, l.ephemeral, l.tool, l.created_at])).toEqual([
      ["user", "hi", false, null, "2026-01-01T00:00:00.000Z"],
      ["user", "approved", false, null, "2026-01-01T00:00:00.000Z"],
      ["system", "earlier: talked about tea", false, null, "2026-01-01T00:00:00.000Z"],
      ["tool", "42", true, "calc", "2026-01-01T00:00:00.000Z"],
    ]);
  });

  it("refuses blocks that pass what cold memory holds, naming the agent", async () => {
    const file = json({ agents: [{ name: "Ada", block_ids: ["b"] }], blocks: [{ id: "b", label: "human", value: "x".repeat(256_001) }], tools: [] });
    expect((await refusalOf(fromLetta(file, NOW))).message).toBe("Letta agent file: agent 0 (Ada): its memory blocks come to 256011 characters; cold memory holds at most 256000");
  });

  it("reads a file that holds the agent file as one JSON string", async () => {
    const inner = JSON.stringify({ agents: [{ name: "Ada", block_ids: ["b"], messages: [{ role: "user", content: "hi" }] }], blocks: [{ id: "b", label: "human", value: "Ada" }], tools: [] });
    const { archive } = await checkImportFile("letta", json(inner), NOW);
    expect(Object.fromEntries(Object.entries(archive.lines).map(([k, v]) => [k, v.length]))).toMatchObject({ cold_memory: 1, message: 1, session: 1 });
  });

  it("refuses a file with no agent, or one of neither layout, saying what was expected", async () => {
    expect((await refusalOf(fromLetta(json({ agents: [], blocks: [] }), NOW))).message).toBe("Letta agent file: agents: the file holds no agent");
    expect((await refusalOf(fromLetta(json({ results: [] }), NOW))).message).toMatch(/^expected a Letta Agent File: an object with agents, blocks and tools \(Agent File v2\)/);
    expect((await refusalOf(fromLetta(json([1, 2]), NOW))).message).toMatch(/^expected a Letta Agent File: .* \(Letta agent file: line 1, column 1: the file is not a JSON object\)$/);
  });
});

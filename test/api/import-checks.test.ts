
import { describe, expect, it } from "vitest";
import { COLD_STORED_MAX_CHARS } from "../../src/notes/cold-store";
import { IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, IMPORT_MAX_LINES } from "../../src/portability/archive";
import { call, followImport, newMind, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { countEverywhere, dataOf } from "../support/shards";

type Auth = { token: string; mind: string };
type Line = Record<string, any>;

const TABLES = ["memories", "memory_history", "notes", "cold_memory", "cold_versions", "chats", "sessions", "messages"];

async function importInto(auth: Auth, body: BodyInit, headers: Record<string, string> = {}) {
  return call("POST", `/minds/${auth.mind}/import`, { token: auth.token, rawBody: body as string, headers: { "Content-Type": "application/x-ndjson", ...headers } });
}

async function rowsOf(mindId: string): Promise<number> {
  let total = 0;
  for (const table of TABLES) {
    total += (await (await dataOf(mindId)).prepare(`select count(*) as n from ${table} where mind_id = ?`).bind(mindId).first<{ n: number }>())!.n;
  }
  return total;
}

/** An archive with a memory, a cold document with two versions, a chat, a session and two messages. */
async function sampleArchive(): Promise<{ t: Awaited<ReturnType<typeof newTenant>>; lines: Line[] }> {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  await store(auth, { key: "coffee_order", content: "Likes coffee" });
  await store(auth, { key: "tea_order", content: "Likes tea" });
  await call("PUT", "/cold", { ...auth, body: { text: "- coffee", version: 0 } });
  await call("PUT", "/cold", { ...auth, body: { text: "- coffee\n- tea", version: 1 } });
  const session = await openSession(auth, { task_name: "deploy" });
  await append(auth, session.id, { content: "first" });
  await append(auth, session.id, { content: "second" });
  const text = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
  return { t, lines: text.trimEnd().split("\n").map((l) => JSON.parse(l)) };
}

const jsonl = (lines: Line[]) => lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
const first = (lines: Line[], type: string) => lines.find((l) => l.type === type)!;
const lineOf = (lines: Line[], line: Line) => lines.indexOf(line) + 1;

describe("an import checks the archive as a whole before writing", () => {
  it("refuses duplicates, dangling references, inconsistent cold versions and out-of-bounds fields with a 400 naming the line", async () => {
    const { t, lines } = await sampleArchive();
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const memory = first(lines, "memory");
    const cold = first(lines, "cold_memory");
    const version = first(lines, "cold_version");
    const chat = first(lines, "chat");
    const session = first(lines, "session");
    const message = first(lines, "message");
    const with_ = (extra: Line) => [...lines, extra];
    const replaced = (old: Line, next: Line) => lines.map((l) => (l === old ? next : l));
    const last = lines.length + 1;
    const cases: [string, Line[], RegExp][] = [
      ["duplicate memory id", with_({ ...memory, key: "other_key" }), new RegExp(`^line ${last}: memory id .* repeats line ${lineOf(lines, memory)}`)],
      ["duplicate memory key", with_({ ...memory, id: "mem_other" }), new RegExp(`^line ${last}: memory default/fact/coffee_order repeats`)],
      ["duplicate cold document", with_({ ...cold }), new RegExp(`^line ${last}: cold memory of agent default repeats`)],
      ["duplicate cold version", with_({ ...version }), new RegExp(`^line ${last}: cold version 1 of agent default repeats`)],
      ["duplicate chat id", with_({ ...chat, external_id: "other" }), new RegExp(`^line ${last}: chat id .* repeats`)],
      ["duplicate chat", with_({ ...chat, id: "chat_other", active_session_id: null }), new RegExp(`^line ${last}: chat api/default of agent default repeats`)],
      ["duplicate session id", with_({ ...session, task_name: "other" }), new RegExp(`^line ${last}: session id .* repeats`)],
      ["duplicate task", with_({ ...session, id: "ses_other" }), new RegExp(`^line ${last}: task deploy of chat .* repeats`)],
      ["duplicate message id", with_({ ...message }), new RegExp(`^line ${last}: message id .* repeats`)],
      ["messages out of order", [...lines.filter((l) => l.type !== "message"), ...lines.filter((l) => l.type === "message").reverse()], new RegExp(`^line ${lines.length}: the messages of session .* ascending`)],
      ["cold version ahead of the document", replaced(cold, { ...cold, version: 1 }), new RegExp(`^line ${lineOf(lines, cold)}: cold memory of agent default is at version 1, but its latest cold_version is 2`)],
      ["versions without a document", lines.filter((l) => l !== cold), /cold versions of agent default without its cold_memory line/],
      ["session of a missing chat", lines.filter((l) => l !== chat), /session .* belongs to chat .* which is not in the archive/],
      ["message of a missing session", with_({ ...message, id: 999_999, session_id: "ses_missing" }), new RegExp(`^line ${last}: message of session ses_missing`)],
      ["active session of another chat", replaced(chat, { ...chat, active_session_id: "ses_missing" }), /the active session ses_missing of chat .* is not one of its sessions/],
      ["key of 101 characters", replaced(memory, { ...memory, key: "k".repeat(101) }), new RegExp(`^line ${lineOf(lines, memory)}: key: `)],
      ["key that is not snake_case", replaced(memory, { ...memory, key: "x</memory>" }), /key must be snake_case/],
      ["agent name", replaced(memory, { ...memory, agent: "Not An Agent" }), /agent: use 1-64 lower-case/],
      ["timestamp", replaced(memory, { ...memory, created_at: "yesterday" }), new RegExp(`^line ${lineOf(lines, memory)}: created_at: `)],
      ["cold text over the stored bound", replaced(cold, { ...cold, text: "x".repeat(COLD_STORED_MAX_CHARS + 1) }), new RegExp(`^line ${lineOf(lines, cold)}: text: `)],
      ["cold version over the stored bound", replaced(version, { ...version, text: "x".repeat(COLD_STORED_MAX_CHARS + 1) }), new RegExp(`^line ${lineOf(lines, version)}: text: `)],
    ];
    for (const [name, archive, message] of cases) {
      const res = await importInto(target, jsonl(archive));
      expect(res.status, name).toBe(400);
      expect(res.json.error.code, name).toBe("invalid_request");
      expect(res.json.error.message, name).toMatch(message);
    }
    expect(await rowsOf(target.mind)).toBe(0);
    // The untouched archive still imports.
    expect((await importInto(target, jsonl(lines))).status).toBe(200);
  });

  it("refuses an orphan history line, a key given twice in one line and a lone surrogate, naming the line, small or large", async () => {
    const { t, lines } = await sampleArchive();
    const memory = first(lines, "memory");
    const history = first(lines, "memory_history");
    const last = lines.length + 1;
    const text = (archive: Line[]) => jsonl(archive);
    const cases: [string, string, RegExp][] = [
      ["history of a memory not in the archive", text([...lines, { ...history, memory_id: "mem_ghost", action: "update" }]), new RegExp(`^line ${last}: history of memory mem_ghost, which is not in the archive`)],
      ["a key given twice", text(lines).replace(`"key":"${memory.key}"`, `"key":"${memory.key}","key":"other_key"`), new RegExp(`^line ${lineOf(lines, memory)}: the key "key" is given twice`)],
      ["a key given twice in a nested object", text(lines).replace('"settings":{', '"settings":{"history_cap":100,"history_cap":150,'), /^line 1: the key "history_cap" is given twice/],
      ["a lone surrogate", text([...lines.filter((l) => l !== memory), { ...memory, content: "broken \ud800 text" }]), new RegExp(`^line ${lines.length}: content holds a lone surrogate`)],
      ["a lone low surrogate in a tag", text([...lines.filter((l) => l !== memory), { ...memory, tags: ["ok", "x\udc00"] }]), new RegExp(`^line ${lines.length}: tags\\[1\\] holds a lone surrogate`)],
    ];
    const memoryLine = lines.find((l) => l.type === "memory")!;
    const filler = Array.from({ length: 400 }, (_, i) => ({ ...memoryLine, id: `mem_fill_${i}`, key: `fill_${i}`, content: "x".repeat(3000) }));
    for (const [name, body, message] of cases) {
      const small = { token: t.token, mind: (await newMind(t.token)).id };
      const res = await importInto(small, body);
      expect(res.status, name).toBe(400);
      expect(res.json.error.message, name).toMatch(message);
      expect(await rowsOf(small.mind), name).toBe(0);
      // Over a megabyte the archive's import fails with the same error.
      const large = { token: t.token, mind: (await newMind(t.token)).id };
      const big = await importInto(large, body + jsonl(filler));
      expect(big.status, name).toBe(202);
      const archiveImport = await followImport(large.mind, t.token, big);
      expect(archiveImport.json.state, name).toBe("failed");
      expect(archiveImport.json.error.message, name).toMatch(message);
    }
  }, 120_000);

  it("imports the history of a memory deleted before the export (its history ends with the deletion)", async () => {
    const { t, lines } = await sampleArchive();
    const history = first(lines, "memory_history");
    const gone = [
      { ...history, memory_id: "mem_gone", action: "create", old_content: null, new_content: "Was here" },
      { ...history, memory_id: "mem_gone", action: "delete", old_content: "Was here", new_content: null },
    ];
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const res = await importInto(target, jsonl([...lines, ...gone]));
    expect(res.status, res.text).toBe(200);
    expect(res.json.imported.memory_history).toBe(lines.filter((l) => l.type === "memory_history").length + 2);
  });

  it("imports a note that names a session deleted since, keeping the note without it", async () => {
    const { t, lines } = await sampleArchive();
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const note = { type: "note", id: "note_x", agent: "default", session_id: "ses_deleted", text: "Prefers tea", category_hint: null, source: "user", confidence: 1, created_at: "2026-01-01T00:00:00.000Z" };
    const res = await importInto(target, jsonl([...lines, note]));
    expect(res.status).toBe(200);
    const notes = await call("GET", "/notes", target);
    expect(notes.json.notes).toMatchObject([{ text: "Prefers tea", session_id: null }]);
  });
});

describe("an import is bounded", () => {
  it("refuses a body over the limit with a 413 naming it, before reading it whole", async () => {
    const t = await newTenant();
    const target = { token: t.token, mind: t.mind.id };
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > IMPORT_MAX_BYTES) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await call("POST", `/minds/${target.mind}/import`, { token: t.token, rawBody: body as unknown as string, headers: { "Content-Type": "application/x-ndjson" } });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining(String(IMPORT_MAX_BYTES)) });
    expect(await rowsOf(target.mind)).toBe(0);
    // Nothing of it is kept: no import, no stored part.
    expect(await countEverywhere("select count(*) as n from imports where mind_id = ?", target.mind)).toBe(0);
  });

  it("refuses a line over its bound and more lines than allowed, naming the limit", async () => {
    const { t, lines } = await sampleArchive();
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    // Past a megabyte the archive is checked by its import, which fails naming the line.
    const long = await followImport(target.mind, t.token, await importInto(target, jsonl(lines.slice(0, 1)) + " ".repeat(IMPORT_MAX_LINE_BYTES + 1) + "\n"));
    expect(long.json).toMatchObject({ state: "failed", error: { code: "payload_too_large", message: `line 2: a line is at most ${IMPORT_MAX_LINE_BYTES} bytes` } });
    // A line of exactly the bound is read (and is blank here).
    expect((await followImport(target.mind, t.token, await importInto(target, jsonl(lines.slice(0, 1)) + " ".repeat(IMPORT_MAX_LINE_BYTES) + "\n"))).json).toMatchObject({ state: "done" });
    const target2 = { token: t.token, mind: (await newMind(t.token)).id };
    const many = await importInto(target2, jsonl(lines.slice(0, 1)) + "\n".repeat(IMPORT_MAX_LINES));
    expect(many.status).toBe(413);
    expect(many.json.error.message).toBe(`an archive has at most ${IMPORT_MAX_LINES} lines`);
    expect(await rowsOf(target2.mind)).toBe(0);
  });

  it("over a megabyte, checks the archive in its archiveImport: a bad line fails the archiveImport with the error naming it, and nothing is written", async () => {
    const { t, lines } = await sampleArchive();
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const memory = lines.find((l) => l.type === "memory")!;
    const filler = Array.from({ length: 400 }, (_, i) => ({ ...memory, id: `mem_fill_${i}`, key: `fill_${i}`, content: "x".repeat(3000) }));
    const bad = [...lines, ...filler, { ...memory, id: "mem_bad", key: "bad", priority: "urgent" }];
    const body = jsonl(bad);
    expect(body.length).toBeGreaterThan(1024 * 1024);
    // Answered before the archive is read as JSON: accepted, then refused by its import.
    const res = await importInto(target, body);
    expect(res.status).toBe(202);
    expect(res.json.import).toMatchObject({ state: "queued", rows_written: 0 });
    const archiveImport = await followImport(target.mind, t.token, res);
    expect(archiveImport.json).toMatchObject({ state: "failed", rows_written: 0, error: { code: "invalid_request" } });
    expect(archiveImport.json.error.message).toMatch(new RegExp(`^line ${bad.length}: .*priority`));
    expect(await rowsOf(target.mind)).toBe(0);
    expect(await countEverywhere("select count(*) as n from import_parts where import_id = ?", res.json.import.id)).toBe(0);
    // The mind takes a good archive afterwards.
    expect((await followImport(target.mind, t.token, await importInto(target, jsonl([...lines, ...filler])))).json).toMatchObject({ state: "done", error: null });
  }, 120_000);

  it("imports a large archive: thousands of memories and long messages", async () => {
    const t = await newTenant();
    const words = "the quick brown fox jumps over a lazy dog while the river keeps running south".split(" ");
    const text = (n: number, seed: number) => Array.from({ length: n }, (_, i) => words[(i * 7 + seed) % words.length]).join(" ");
    const at = "2026-01-01T00:00:00.000Z";
    const archive: Line[] = [
      { type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "big", locale: "en", retention_hours: null, settings: {} } },
    ];
    for (let i = 0; i < 3000; i++) {
      archive.push({ type: "memory", id: `mem_${i}`, agent: "default", category: "fact", key: `fact_${i}`, content: text(150, i), tags: ["bulk"], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at });
    }
    archive.push({ type: "chat", id: "chat_1", kind: "api", external_id: "default", active_session_id: "ses_1", created_at: at });
    archive.push({ type: "session", id: "ses_1", chat_id: "chat_1", repo_path: null, task_name: "long", conversation_id: "c", extracted_through_message_id: 100, created_at: at, last_message_at: at });
    for (let i = 1; i <= 120; i++) {
      archive.push({ type: "message", id: i, session_id: "ses_1", role: i % 2 ? "user" : "assistant", content: text(5000, i), ephemeral: false, tool: null, created_at: at });
    }
    const body = jsonl(archive);
    expect(body.length).toBeGreaterThan(4 * 1024 * 1024);
    const res = await importInto({ token: t.token, mind: t.mind.id }, body);
    // Over a megabyte: checked and staged by the request, written in the background.
    expect(res.status).toBe(202);
    expect(res.headers.get("Location")).toBe(`/minds/${t.mind.id}/import/${res.json.import.id}`);
    expect(res.json.import).toMatchObject({ state: "queued", rows_written: 0 });
    const archiveImport = await followImport(t.mind.id, t.token, res);
    expect(archiveImport.json).toMatchObject({ state: "done", error: null, counts: { memories: 3000, sessions: 1, messages: 120 } });
    expect(archiveImport.json.rows_written).toBe(archiveImport.json.rows_total);
    const session = (await call("GET", "/sessions", { token: t.token, mind: t.mind.id })).json.sessions[0];
    expect(session.message_count).toBe(120);
    const cursor = await countEverywhere("select count(*) as n from messages where session_id = ? and id <= ?", session.id, session.extracted_through_message_id);
    expect(cursor).toBe(100);
  }, 120_000);
});

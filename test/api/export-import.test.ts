import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLoginLink } from "../../src/auth/login-links";
import { recordUsage } from "../../src/llm/ledger";
import { abandonImport, acceptImport, runImport } from "../../src/portability/import/imports";
import { recordGrant } from "../../src/tenancy/grants";
import { call, newKey, newMind, newTenant, store } from "../helpers";
import { append, openSession, storedState } from "../sessions/session-helpers";
import { depsOfMind, testDeps } from "../support/deps";
import { faultyD1, InjectedFault } from "../support/faulty-d1";
import { countEverywhere, dataOf, firstEverywhere } from "../support/shards";

type Auth = { token: string; mind: string };

/** A mind with something in every kind of row an export carries. */
async function fillMind(auth: Auth) {
  const { key } = await newKey(auth.token, auth.mind, "coder");
  const kept = await store(auth, { category: "preference", key: "coffee_order", content: "Любит кофе без сахара", tags: ["coffee", "утро"], priority: "high" });
  await call("PUT", `/memory/${kept.id}`, { ...auth, body: { content: "Любит кофе с молоком", priority: "critical" } });
  await store({ token: key }, { category: "project", key: "deploy_target", content: "Deploys to Cloudflare", confidence: 0.6 });
  const gone = await store(auth, { key: "old_fact", content: "Lived in Berlin" });
  await call("DELETE", `/memory/${gone.id}`, auth);
  const agentMemory = await store({ token: key }, { key: "unverified_fact", content: "Has a cat" });
  await call("POST", `/memory/${agentMemory.id}/verify`, auth);

  const first = await openSession(auth, { task_name: "deploy", repo_path: "/srv/app" });
  await append(auth, first.id, { content: "Deploy the worker" });
  await append(auth, first.id, { role: "tool", content: "wrangler output", ephemeral: true, tool: "shell" });
  await append(auth, first.id, { role: "assistant", content: "Deployed" });
  const second = await openSession(auth, { task_name: "review", chat: "ops" });
  await append(auth, second.id, { content: "Review the PR" });
  const firstMessage = await firstEverywhere<{ id: number }>("select min(id) as id from messages where session_id = ? having count(*) > 0", first.id);
  await (await dataOf(auth.mind!)).prepare("update sessions set extracted_through_message_id = ? where id = ?").bind(firstMessage!.id, first.id).run();

  await call("POST", "/notes", { ...auth, body: { text: "Prefers short answers", session_id: first.id } });
  await call("POST", "/notes", { token: key, body: { text: "Uses pnpm", category_hint: "project" } });
  await call("PUT", "/cold", { ...auth, body: { text: "## About\n- likes coffee", version: 0 } });
  await call("PUT", "/cold", { ...auth, body: { text: "## About\n- likes coffee with milk", version: 1 } });
  await call("PUT", "/cold?agent=coder", { ...auth, body: { text: "## Project\n- Cloudflare", version: 0 } });
  await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { locale: "ru", retention_hours: 720, settings: { llm_window: 8 } } });
  return { key, sessions: [first.id, second.id] };
}

async function exportLines(auth: Auth): Promise<any[]> {
  const res = await call("GET", `/minds/${auth.mind}/export`, { token: auth.token });
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toContain("application/x-ndjson");
  expect(res.headers.get("Content-Disposition")).toMatch(/attachment; filename="edgemind-mind_.*\.jsonl"/);
  return res.text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

/** The archive with every id replaced by its order of first appearance, so two minds compare. */
function comparable(lines: any[]): any[] {
  const labels = new Map<string | number, string>();
  const label = (value: string | number) => {
    if (!labels.has(value)) labels.set(value, `#${labels.size}`);
    return labels.get(value)!;
  };
  const idFields = ["id", "memory_id", "session_id", "chat_id", "active_session_id"];
  return lines.slice(1).map((line) => {
    const out = { ...line };
    for (const field of idFields) if (out[field] != null) out[field] = label(out[field]);
    return out;
  }).map((line) => {
    // The cursor is a message id: compare it by the message it names.
    if (line.type === "session" && line.extracted_through_message_id > 0) line.extracted_through_message_id = label(line.extracted_through_message_id);
    return line;
  });
}

async function importInto(auth: Auth, body: string) {
  return call("POST", `/minds/${auth.mind}/import`, { token: auth.token, rawBody: body, headers: { "Content-Type": "application/x-ndjson" } });
}

async function rowCount(table: string, mindId: string): Promise<number> {
  // Summed over every database: the directory's tables and the mind's shard.
  return countEverywhere(`select count(*) as n from ${table} where mind_id = ?`, mindId);
}

describe("export and import", () => {
  it("exports every kind of row and imports it into an empty mind with the same content", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const { key } = await fillMind(auth);
    const original = await exportLines(auth);
    expect(original[0]).toMatchObject({ type: "header", format: "edgemind-mind", version: 2, mind: { id: t.mind.id, locale: "ru", retention_hours: 720 } });
    const types = original.map((l) => l.type);
    expect(new Set(types)).toEqual(new Set(["header", "memory", "memory_history", "note", "cold_memory", "cold_version", "chat", "session", "message"]));
    expect(types.filter((x) => x === "memory")).toHaveLength(3);
    expect(types.filter((x) => x === "cold_version")).toHaveLength(3);
    expect(original.find((l) => l.type === "message" && l.ephemeral)).toMatchObject({ content: "wrangler output", tool: "shell" });
    expect(JSON.stringify(original)).not.toContain(key.split(".")[1]);
    expect(original.find((l) => l.type === "memory_history" && l.changes)).toMatchObject({ changes: { priority: ["high", "critical"] } });

    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const imported = await importInto(target, original.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(imported.status).toBe(200);
    expect(imported.json.imported).toEqual({
      memories: 3, memory_history: 7, notes: 2, cold_memory: 2, cold_versions: 3, chats: 2, sessions: 2, messages: 4,
    });
    const again = await exportLines(target);
    expect(again[0].mind).toMatchObject({ id: target.mind, locale: "ru", retention_hours: 720, settings: original[0].mind.settings });
    expect(comparable(again)).toEqual(comparable(original));
    expect(again.find((l) => l.type === "memory").id).not.toBe(original.find((l) => l.type === "memory").id);

    // The restored mind works: search finds restored memories and messages, the cursor kept its place.
    const found = await call("GET", "/memory/search?q=кофе", target);
    expect(found.json.results.map((r: { key: string }) => r.key)).toEqual(["coffee_order"]);
    const sessions = await call("GET", "/sessions", target);
    const deploy = sessions.json.sessions.find((s: { task_name: string }) => s.task_name === "deploy");
    expect(deploy).toMatchObject({ repo_path: "/srv/app", message_count: 3 });
    const llm = await call("GET", `/sessions/${deploy.id}/messages?channel=llm`, target);
    expect(llm.json.messages.map((m: { content: string }) => m.content)).toEqual(["Deploy the worker", "Deployed"]);
    expect((await call("GET", "/notes/search?q=answers", target)).json.results).toHaveLength(1);
  });

  it("imports a Telegram chat as an API chat named telegram:<id>, its tasks kept: the bot's chat stays with the mind the bot writes to", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const session = await openSession(auth, { task_name: "groceries", chat: "bot" });
    await append(auth, session.id, { content: "Buy green tea" });
    // The archive of a mind whose chat is the bot's: its chat line says so.
    const lines = (await exportLines(auth)).map((l) => (l.type === "chat" ? { ...l, kind: "telegram", external_id: "4242" } : l));
    const archive = lines.map((l) => JSON.stringify(l)).join("\n") + "\n";

    const target = { token: t.token, mind: (await newMind(t.token)).id };
    expect((await importInto(target, archive)).status).toBe(200);
    const chats = (await call("GET", "/chats", target)).json.chats;
    expect(chats).toEqual([expect.objectContaining({ kind: "api", external_id: "telegram:4242", session_count: 1 })]);
    const tasks = (await call("GET", "/sessions?chat=telegram:4242", target)).json.sessions;
    expect(tasks).toEqual([expect.objectContaining({ task_name: "groceries", message_count: 1 })]);

    // An archive holding both a Telegram chat and the API chat it would become is refused, naming both lines.
    const chatLine = lines.findIndex((l) => l.type === "chat");
    const both = [...lines.slice(0, chatLine + 1), { ...lines[chatLine], id: "chat_twin", kind: "api", external_id: "telegram:4242", active_session_id: null }, ...lines.slice(chatLine + 1)];
    const refused = await importInto({ token: t.token, mind: (await newMind(t.token)).id }, both.map((l) => JSON.stringify(l)).join("\n") + "\n");
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe(`line ${chatLine + 2}: chat api/telegram:4242 of agent default repeats line ${chatLine + 1}`);
  });

  it("refuses to import into a mind that holds anything, and changes nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "one", content: "one" });
    const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
    const res = await importInto(auth, archive);
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: "conflict", message: expect.stringContaining("not empty") });
    expect(await rowCount("memories", t.mind.id)).toBe(1);
  });

  it("names the first malformed line and writes nothing", async () => {
    const t = await newTenant();
    const source = { token: t.token, mind: t.mind.id };
    await fillMind(source);
    const lines = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text.trimEnd().split("\n");
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const cases: [string, RegExp][] = [
      [[...lines.slice(0, 5), "{not json", ...lines.slice(5)].join("\n"), /^line 6: not valid JSON$/],
      [[...lines, JSON.stringify({ type: "memory", id: "x" })].join("\n"), new RegExp(`^line ${lines.length + 1}: `)],
      [lines.slice(1).join("\n"), /^expected edgemind's archive: JSON lines, the first its header .* \(line 1: .*header must be the first line/],
      [[lines[0], JSON.stringify({ type: "wizard" })].join("\n"), /^line 2: /],
      ["", /archive is empty/],
      [[...lines.filter((l) => !l.includes('"type":"chat"'))].join("\n"), /not in the archive/],
    ];
    for (const [body, message] of cases) {
      const res = await importInto(target, body);
      expect(res.status, body.slice(0, 80)).toBe(400);
      expect(res.json.error.code).toBe("invalid_request");
      expect(res.json.error.message).toMatch(message);
    }
    for (const table of ["memories", "memory_history", "notes", "cold_memory", "cold_versions", "chats", "sessions", "messages"]) {
      expect(await rowCount(table, target.mind), table).toBe(0);
    }
    const mind = await call("GET", `/minds/${target.mind}`, { token: t.token });
    expect(mind.json.locale).toBe("en");
  });

  it("accepts an archive larger than the ordinary body limit, which other routes still refuse", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    for (let i = 0; i < 20; i++) await store(auth, { key: `fact_${i}`, content: `${"x".repeat(7000)} ${i}` });
    const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
    expect(archive.length).toBeGreaterThan(128 * 1024);
    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const res = await importInto(target, archive);
    expect(res.status).toBe(200);
    expect(res.json.imported.memories).toBe(20);
    const big = await call("POST", "/notes", { ...auth, body: { text: "y".repeat(128 * 1024) } });
    expect(big.status).toBe(413);
  });

  it("keeps export and import to the mind's owner", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const { key } = await newKey(owner.token, owner.mind.id);
    expect((await call("GET", `/minds/${owner.mind.id}/export`, { token: other.token })).status).toBe(404);
    expect((await call("GET", `/minds/${owner.mind.id}/export`, { token: key })).status).toBe(403);
    expect((await call("GET", `/minds/${owner.mind.id}/export`)).status).toBe(401);
    const archive = (await call("GET", `/minds/${other.mind.id}/export`, { token: other.token })).text;
    expect((await importInto({ token: other.token, mind: owner.mind.id }, archive)).status).toBe(404);
    expect((await importInto({ token: key, mind: owner.mind.id }, archive)).status).toBe(403);
  });
});

describe("an import that fails part-way", () => {
  it("erases what it had written once given up, so the mind is as empty as before", async () => {
    const t = await newTenant();
    const source = { token: t.token, mind: t.mind.id };
    const sourceDb = await dataOf(t.mind.id);
    for (let i = 0; i < 300; i++) await sourceDb.prepare(
      "insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence, created_at, updated_at) values (?, ?, 'default', 'fact', ?, ?, '[]', 'normal', 'user', 1, 1.0, ?, ?)",
    ).bind(`mem_bulk_${t.mind.id}_${i}`, t.mind.id, `fact_${i}`, `fact number ${i}`, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z").run();
    const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
    const target = await newMind(t.token);
    const archiveImport = (await acceptImport(testDeps(), t.accountId, target.id, [new TextEncoder().encode(archive)])).archiveImport;
    // The archive is checked and staged first; then the D1 calls of a run are the mind, then per
    // slice the import, its rows, the quota and its batch: the second slice's batch fails.
    let steps = 0;
    await runImport(testDeps(), target.id, archiveImport.id, () => steps++ < 1);
    const plan = { failAt: 9, mode: "before" as const, calls: 0 };
    await expect(runImport(testDeps({ wrap: (d1) => faultyD1(d1, plan) }), target.id, archiveImport.id, () => true)).rejects.toThrow(InjectedFault);
    expect(await rowCount("memories", target.id)).toBeGreaterThan(0);
    expect(await abandonImport(testDeps(), target.id, archiveImport.id)).toMatchObject({ state: "failed", error: { code: "internal" } });
    expect(await rowCount("memories", target.id)).toBe(0);
    const res = await importInto({ token: source.token, mind: target.id }, archive);
    expect(res.json.imported.memories).toBe(300);
    expect(await rowCount("memories", target.id)).toBe(300);
  });
});

describe("erasing a mind", () => {
  it("deletes every row of every table that holds the mind, and its session objects, and counts them", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const { sessions } = await fillMind(auth);
    await call("POST", "/cold/consolidations", { ...auth, body: {} });
    const deps = testDeps();
    await createLoginLink(deps, { accountId: t.accountId, mindId: t.mind.id });
    await recordUsage(await depsOfMind(t.mind.id), { mindId: t.mind.id }, "chat", { inputTokens: 10, outputTokens: 5 }, false);
    await (await dataOf(t.mind.id)).prepare("insert into embeddings (kind, row_id, mind_id, state, attempts, next_attempt_at, updated_at) values ('memory', 'mem_x', ?, 'done', 0, ?, ?)")
      .bind(t.mind.id, new Date().toISOString(), new Date().toISOString())
      .run();
    await recordGrant(deps, { accountId: t.accountId, mindId: t.mind.id, agent: null, clientId: "client-1", clientName: "An app", redirectHost: "app.example", scope: ["mind"] });
    await (await dataOf(t.mind.id)).prepare(
      "insert into note_extractions (mind_id, session_id, after_message_id, through_message_id, agent, note_count, created_at) values (?, ?, '', '1', 'default', 1, ?)",
    ).bind(t.mind.id, sessions[0], new Date().toISOString()).run();
    await env.DB.prepare("insert into telegram_chats (telegram_chat_id, mind_id, account_id, kind, created_at) values (?, ?, ?, 'group', ?)")
      .bind(-Date.now(), t.mind.id, t.accountId, new Date().toISOString())
      .run();
    await (await dataOf(t.mind.id)).prepare("insert into imports (id, mind_id, state, restore, created_at, updated_at) values (?, ?, 'done', '{}', ?, ?)")
      .bind(`imp_${t.mind.id}`, t.mind.id, new Date().toISOString(), new Date().toISOString())
      .run();
    // A webhook with an event and a delivery (written here: one made through the API would deliver in the background).
    const now = new Date().toISOString();
    const shard = await dataOf(t.mind.id);
    await shard.batch([
      shard.prepare("insert into event_streams (mind_id, last) values (?, 1)").bind(t.mind.id),
      shard.prepare("insert into events (id, mind_id, sequence, type, agent, occurred_at, data) values (?, ?, 1, 'note.created', 'default', ?, '{}')").bind(`evt_${t.mind.id}`, t.mind.id, now),
      shard.prepare("insert into webhooks (id, mind_id, url, types, secret, enabled, cursor, failures, next_attempt_at, created_at, updated_at) values (?, ?, 'https://receiver.test/', '[]', 'v1.x.y', 1, 1, 0, ?, ?, ?)").bind(`whk_${t.mind.id}`, t.mind.id, now, now, now),
      shard.prepare("insert into webhook_attempts (mind_id, webhook_id, event_id, sequence, type, status, ok, duration_ms, at) values (?, ?, ?, 1, 'note.created', 200, 1, 5, ?)").bind(t.mind.id, `whk_${t.mind.id}`, `evt_${t.mind.id}`, now),
    ]);
    await env.DB.prepare("insert into dead_letters (unit, shard, kind, mind_id, namespace, error_code, attempts, first_at, last_at) values (?, 'DB', 'consolidate', ?, 'default', 'model_failed', 11, ?, ?)")
      .bind(`consolidate ${t.mind.id} default`, t.mind.id, new Date().toISOString(), new Date().toISOString())
      .run();
    expect((await storedState(sessions[0]!)).kv).not.toEqual({});

    // Besides the mind's data: the records of operations on it (an erasure's record keeps its id and counts, by design).
    const { results: tables } = await env.DB.prepare(
      "select name from sqlite_master where type = 'table' and sql like '%mind_id TEXT%' and name not like '%fts%' and name not in ('mind_moves', 'mind_copy_cursors', 'mind_erasures')",
    ).all<{ name: string }>();
    const before: Record<string, number> = {};
    for (const { name } of tables) before[name] = await rowCount(name, t.mind.id);
    expect(Object.keys(before).sort()).toEqual(
      ["chats", "cold_memory", "cold_versions", "consolidations", "dead_letters", "embeddings", "event_streams", "events", "imports", "llm_usage", "login_links", "memories", "memory_history", "messages", "mind_keys", "mind_usage", "note_extractions", "notes", "oauth_grants", "sessions", "telegram_chats", "webhook_attempts", "webhooks"],
    );
    for (const [name, n] of Object.entries(before)) expect(n, name).toBeGreaterThan(0);

    const erased = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    expect(erased.status).toBe(200);
    expect(erased.json.deleted).toEqual({ minds: 1, ...before });
    for (const { name } of tables) expect(await rowCount(name, t.mind.id), name).toBe(0);
    for (const id of sessions) expect(await storedState(id)).toEqual({ kv: {}, alarm: null });
    expect((await call("GET", `/minds/${t.mind.id}`, { token: t.token })).status).toBe(404);
  });
});

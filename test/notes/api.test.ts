
import { describe, expect, it, vi } from "vitest";
import { DIFF_MAX_LINES } from "../../src/notes/cold-memory";
import { ADMIN_TOKEN, call, newKey, newMind, newTenant } from "../helpers";
import { openSession } from "../sessions/session-helpers";
import { testDeps } from "../support/deps";
import { consolidate } from "../support/long-term";
import { dataOf } from "../support/shards";

type Auth = { token: string; mind?: string };

async function note(auth: Auth, body: Record<string, unknown>, query = "") {
  const res = await call("POST", `/notes${query}`, { ...auth, body });
  if (res.status !== 201) throw new Error(`note: ${res.status} ${res.text}`);
  return res.json;
}

async function putCold(auth: Auth, body: Record<string, unknown>, query = "") {
  return call("PUT", `/cold${query}`, { ...auth, body });
}

describe("notes", () => {
  it("appends notes with provenance and lists them oldest first", async () => {
    const t = await newTenant();
    const human = { token: t.token, mind: t.mind.id };
    const session = await openSession(human, { task_name: "notes" });
    const first = await note(human, { text: "Prefers short answers", category_hint: "preferences", session_id: session.id });
    expect(first).toMatchObject({ source: "user", confidence: 1, agent: "default", session_id: session.id, consolidation_id: null });
    const key = await newKey(t.token, t.mind.id);
    const second = await note({ token: key.key }, { text: "Works on the billing service" });
    expect(second).toMatchObject({ source: "agent", confidence: 0.7, category_hint: null });

    const list = await call("GET", "/notes", human);
    expect(list.status).toBe(200);
    expect(list.json.total).toBe(2);
    expect(list.json.notes.map((n: { id: string }) => n.id)).toEqual([first.id, second.id]);
  });

  it("refuses a session of another mind, or one that does not exist, and writes nothing", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const human = { token: t.token, mind: t.mind.id };
    const theirs = await openSession({ token: other.token, mind: other.mind.id }, { task_name: "theirs" });
    for (const session_id of [theirs.id, "ses_missing"]) {
      const res = await call("POST", "/notes", { ...human, body: { text: "Leaks into another mind", session_id } });
      expect(res.status, session_id).toBe(404);
      expect(res.json.error).toMatchObject({ code: "not_found", message: "session not found" });
    }
    const key = await newKey(t.token, t.mind.id);
    expect((await call("POST", "/notes", { token: key.key, body: { text: "Via a key", session_id: theirs.id } })).status).toBe(404);
    expect((await call("GET", "/notes", human)).json.total).toBe(0);
  });

  it("keeps agent namespaces apart and lets a human write to any", async () => {
    const t = await newTenant();
    const scoped = await newKey(t.token, t.mind.id, "coder");
    await note({ token: scoped.key }, { text: "Uses pnpm" });
    await note({ token: t.token, mind: t.mind.id }, { text: "Writes in Russian", agent: "writer" });
    const coder = await call("GET", "/notes", { token: scoped.key });
    expect(coder.json.notes.map((n: { text: string }) => n.text)).toEqual(["Uses pnpm"]);
    const writer = await call("GET", "/notes?agent=writer", { token: t.token, mind: t.mind.id });
    expect(writer.json.notes.map((n: { agent: string }) => n.agent)).toEqual(["writer"]);
    const all = await call("GET", "/notes", { token: t.token, mind: t.mind.id });
    expect(all.json.total).toBe(2);

    const escape = await call("POST", "/notes", { token: scoped.key, body: { text: "x", agent: "writer" } });
    expect(escape.status).toBe(403);
    const mismatch = await call("POST", "/notes?agent=coder", { token: t.token, mind: t.mind.id, body: { text: "x", agent: "writer" } });
    expect(mismatch.status).toBe(400);
    expect((await call("GET", "/notes?agent=writer", { token: scoped.key })).status).toBe(403);
  });

  it("searches notes with the memories' normalisation (stems, ё/е)", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const hit = await note(auth, { text: "Ёжик любит молоко по утрам" });
    await note(auth, { text: "Deploys on Fridays are forbidden" });
    const ru = await call("GET", `/notes/search?q=${encodeURIComponent("ежик любить")}`, auth);
    expect(ru.status).toBe(200);
    expect(ru.json.results.map((r: { id: string }) => r.id)).toEqual([hit.id]);
    const en = await call("GET", "/notes/search?q=deploying%20friday", auth);
    expect(en.json.results).toHaveLength(1);
    const syntax = await call("GET", `/notes/search?q=${encodeURIComponent('"C++ AND *')}`, auth);
    expect(syntax.status).toBe(200);
  });

  it("searches a note's context below its own words and shows it only with include=context", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const heard = await note(auth, { text: "Prefers green tea", context: "user: what should I bring to the Kyoto trip?" });
    expect(heard.context).toBe("user: what should I bring to the Kyoto trip?");
    const own = await note(auth, { text: "Visited Kyoto in April" });
    const found = await call("GET", "/notes/search?q=kyoto", auth);
    expect(found.json.results.map((r: { id: string }) => r.id)).toEqual([own.id, heard.id]);
    expect(found.json.results[1]).not.toHaveProperty("context");
    const shown = await call("GET", "/notes/search?q=kyoto&include=context", auth);
    expect(shown.json.results[1].context).toBe("user: what should I bring to the Kyoto trip?");
    const long = await call("POST", "/notes", { ...auth, body: { text: "x y z", context: "c".repeat(4001) } });
    expect(long.status).toBe(400);
  });

  it("never shows another tenant's notes", async () => {
    const a = await newTenant();
    const b = await newTenant();
    await note({ token: b.token, mind: b.mind.id }, { text: "Secret of tenant b: loves jazz" });
    const keyA = await newKey(a.token, a.mind.id);
    expect((await call("GET", "/notes", { token: a.token, mind: b.mind.id })).status).toBe(404);
    expect((await call("GET", "/notes", { token: keyA.key, mind: b.mind.id })).status).toBe(404);
    expect((await call("POST", "/notes", { token: a.token, mind: b.mind.id, body: { text: "x" } })).status).toBe(404);
    expect((await call("GET", "/notes/search?q=jazz", { token: a.token, mind: b.mind.id })).status).toBe(404);
    const own = await call("GET", "/notes/search?q=jazz", { token: keyA.key });
    expect(own.json.results).toEqual([]);
    expect((await call("GET", "/notes")).status).toBe(401);
    expect((await call("POST", "/notes", { body: { text: "x" } })).status).toBe(401);
  });

  it("rejects bad input with a 400 naming the problem and stores nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const bad: [unknown, RegExp][] = [
      [{}, /text/],
      [{ text: "   " }, /text/],
      [{ text: "x".repeat(2001) }, /text/],
      [{ text: "ok", colour: "red" }, /unknown field/],
      [{ text: "ok", category_hint: "weather" }, /category_hint/],
      [{ text: "ok", agent: "Bad Agent" }, /agent/],
      [{ text: "ok", session_id: "" }, /session_id/],
      [{ text: 42 }, /text/],
    ];
    for (const [body, message] of bad) {
      const res = await call("POST", "/notes", { ...auth, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.message).toMatch(message);
    }
    const raw = await call("POST", "/notes", { ...auth, rawBody: "{not json", headers: { "Content-Type": "application/json" } });
    expect(raw.status).toBe(400);
    for (const query of ["q=", `q=${"a".repeat(501)}`, "q=x&limit=0", "q=x&limit=abc"]) {
      expect((await call("GET", `/notes/search?${query}`, auth)).status, query).toBe(400);
    }
    expect((await call("GET", "/notes?limit=1000", auth)).status).toBe(400);
    expect((await call("GET", "/notes?agent=BAD!", auth)).status).toBe(400);
    expect((await call("GET", "/notes", auth)).json.total).toBe(0);
  });
});

describe("reviewing notes", () => {
  it("a person verifies an agent's note or deletes it; a key may delete but never verify", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const { key } = await newKey(t.token, t.mind.id);
    const a = (await call("POST", "/notes", { token: key, body: { text: "Uses tabs, not spaces" } })).json;
    const b = (await call("POST", "/notes", { token: key, body: { text: "Deploys on Mondays" } })).json;
    expect(a).toMatchObject({ source: "agent", confidence: 0.7 });
    expect((await call("POST", `/notes/${a.id}/verify`, { token: key })).status).toBe(403);
    expect((await call("POST", `/notes/${a.id}/verify`, auth)).json).toMatchObject({ id: a.id, source: "user", confidence: 1 });
    expect((await call("DELETE", `/notes/${b.id}`, { token: key })).json).toMatchObject({ id: b.id });
    expect((await call("DELETE", `/notes/${b.id}`, auth)).status).toBe(404);
    const left = (await call("GET", "/notes", auth)).json.notes;
    expect(left.map((n: { id: string; source: string }) => [n.id, n.source])).toEqual([[a.id, "user"]]);
  });

  it("another mind's note answers 404 and is left alone", async () => {
    const owner = await newTenant();
    const other = await newTenant();
    const note = (await call("POST", "/notes", { token: owner.token, mind: owner.mind.id, body: { text: "Private fact" } })).json;
    expect((await call("POST", `/notes/${note.id}/verify`, { token: other.token, mind: other.mind.id })).status).toBe(404);
    expect((await call("DELETE", `/notes/${note.id}`, { token: other.token, mind: other.mind.id })).status).toBe(404);
    expect((await call("GET", "/notes", { token: owner.token, mind: owner.mind.id })).json.total).toBe(1);
  });
});

describe("cold memory", () => {
  it("starts empty at version 0 and writes by compare-and-swap", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    expect((await call("GET", "/cold", auth)).json).toEqual({
      agent: "default",
      text: "",
      version: 0,
      updated_at: null,
      namespaces: [{ agent: "default", memories: 0, notes: 0, cold_version: 0 }],
    });
    const v1 = await putCold(auth, { text: "## Profile\n- Alice\n", version: 0 });
    expect(v1.status).toBe(200);
    expect(v1.json).toMatchObject({ version: 1, text: "## Profile\n- Alice\n", folded_notes: 0 });

    const stale = await putCold(auth, { text: "overwrite", version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("memory_changed");
    const ahead = await putCold(auth, { text: "overwrite", version: 7 });
    expect(ahead.status).toBe(409);
    expect((await call("GET", "/cold", auth)).json).toMatchObject({ text: "## Profile\n- Alice\n", version: 1 });

    const v2 = await putCold(auth, { text: "## Profile\n- Alice\n- Lives in Riga\n", version: 1 });
    expect(v2.json.version).toBe(2);
    const versions = await call("GET", "/cold/versions", auth);
    expect(versions.json.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions.json.versions[0].author).toMatch(/^user:/);
  });

  it("a stale version on a fresh namespace changes nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    expect((await putCold(auth, { text: "x", version: 3 })).status).toBe(409);
    expect((await call("GET", "/cold", auth)).json.version).toBe(0);
    expect((await call("GET", "/cold/versions", auth)).json.versions).toEqual([]);
  });

  it("keeps one document per agent namespace", async () => {
    const t = await newTenant();
    const scoped = await newKey(t.token, t.mind.id, "coder");
    await putCold({ token: scoped.key }, { text: "coder memory", version: 0 });
    expect((await call("GET", "/cold", { token: t.token, mind: t.mind.id })).json.version).toBe(0);
    expect((await call("GET", "/cold?agent=coder", { token: t.token, mind: t.mind.id })).json.text).toBe("coder memory");
    expect((await call("GET", "/cold?agent=other", { token: scoped.key })).status).toBe(403);
  });

  it("shows versions, diffs two of them and rolls back", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await putCold(auth, { text: "## Profile\n- Alice\n", version: 0 });
    await putCold(auth, { text: "## Profile\n- Alice\n- Bob's sister\n", version: 1 });
    await putCold(auth, { text: "## Profile\n- Bob's sister\n", version: 2 });

    const v1 = await call("GET", "/cold/versions/1", auth);
    expect(v1.json).toMatchObject({ version: 1, text: "## Profile\n- Alice\n" });
    const diff = await call("GET", "/cold/diff?from=1&to=3", auth);
    expect(diff.json).toMatchObject({ from: 1, to: 3, added: 1, removed: 1 });
    expect(diff.json.patch).toContain("-- Alice");
    expect(diff.json.patch).toContain("+- Bob's sister");
    const fromEmpty = await call("GET", "/cold/diff?from=0", auth);
    expect(fromEmpty.json).toMatchObject({ from: 0, to: 3, added: 2, removed: 0 });

    const rolled = await call("POST", "/cold/rollback", { ...auth, body: { version: 1 } });
    expect(rolled.status).toBe(200);
    expect(rolled.json).toMatchObject({ version: 4, text: "## Profile\n- Alice\n" });
    const latest = (await call("GET", "/cold/versions?limit=1", auth)).json.versions[0];
    expect(latest.author).toMatch(/^rollback to 1 by user:/);
    expect((await call("POST", "/cold/rollback", { ...auth, body: { version: 4 } })).status).toBe(400);
  });

  it("diffs versions of up to DIFF_MAX_LINES lines and answers 413 naming the limit past it", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i.toString(36)}`).join("\n") + "\n";
    await putCold(auth, { text: lines(DIFF_MAX_LINES, "a"), version: 0 });
    await putCold(auth, { text: lines(DIFF_MAX_LINES, "b"), version: 1 });
    const edited = lines(DIFF_MAX_LINES, "b").replace("\nb5\n", "\nchanged\n");
    await putCold(auth, { text: edited, version: 2 });
    await putCold(auth, { text: lines(DIFF_MAX_LINES + 1, "c"), version: 3 });

    // Every line differs: past DIFF_MAX_EDITS the patch replaces the whole document.
    const whole = await call("GET", "/cold/diff?from=1&to=2", auth);
    expect(whole.status).toBe(200);
    expect(whole.json).toMatchObject({ added: DIFF_MAX_LINES, removed: DIFF_MAX_LINES, exact: false });
    expect(whole.json.patch).toContain("-a0\n");
    expect(whole.json.patch).toContain("+b0\n");
    const small = await call("GET", "/cold/diff?from=2&to=3", auth);
    expect(small.json).toMatchObject({ added: 1, removed: 1, exact: true });
    expect(small.json.patch).toContain("-b5\n+changed\n");

    const tooLong = await call("GET", "/cold/diff?from=3&to=4", auth);
    expect(tooLong.status).toBe(413);
    expect(tooLong.json.error.code).toBe("payload_too_large");
    expect(tooLong.json.error.message).toContain(`at most ${DIFF_MAX_LINES} lines`);
    expect(tooLong.json.error.message).toContain("version 4");
    expect((await call("GET", "/cold/diff?from=0&to=4", auth)).status).toBe(413);
  });

  it("shows a failed consolidation's code and a safe message, never the database's text", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await note(auth, { text: "Lives in Lisbon" });
    // A stray version 1 makes the first write of cold memory fail inside D1 (UNIQUE constraint).
    await (await dataOf(t.mind.id)).prepare("insert into cold_versions (mind_id, agent, version, text, author, created_at) values (?, 'default', 1, 'stray', 'test', ?)")
      .bind(t.mind.id, new Date().toISOString())
      .run();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const outcome = await consolidate(testDeps(), { mindId: t.mind.id, agent: "default" });
    expect(outcome.status).toBe("failed");
    expect(logged.mock.calls.flat().map((a) => (a instanceof Error ? `${a.message} ${String(a.cause ?? "")}` : String(a))).join(" ")).toMatch(/UNIQUE/);
    logged.mockRestore();
    const history = await call("GET", "/cold/consolidations", auth);
    const [failed] = history.json.consolidations;
    expect(failed).toMatchObject({ status: "failed", error_code: "internal", error: "internal: the consolidation failed; its notes wait for the next run" });
    expect(history.text).not.toMatch(/UNIQUE|D1_|SQL|constraint|cold_versions/i);
    expect(JSON.stringify(outcome)).not.toMatch(/UNIQUE|D1_/);
    expect((await call("GET", "/notes", auth)).json.total).toBe(1);
  });

  it("lets a client consolidate: claim notes, then PUT with the consolidation id deletes exactly those", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await note(auth, { text: "Likes green tea" });
    await note(auth, { text: "Hates meetings before ten" });
    const claim = await call("POST", "/cold/consolidations", { ...auth, body: {} });
    expect(claim.status).toBe(200);
    expect(claim.json.notes).toHaveLength(2);
    expect(claim.json.cold).toMatchObject({ version: 0 });
    const late = await note(auth, { text: "Arrived after the claim" });

    const nothingLeft = await call("POST", "/cold/consolidations", { ...auth, body: { limit: 5 } });
    expect(nothingLeft.json.notes.map((n: { id: string }) => n.id)).toEqual([late.id]);
    await call("PUT", "/cold", { ...auth, body: { text: "", version: 0, consolidation_id: nothingLeft.json.consolidation_id } });

    const written = await putCold(auth, {
      text: "## Preferences\n- Likes green tea\n\n## Avoid\n- Meetings before ten\n",
      version: 1,
      consolidation_id: claim.json.consolidation_id,
    });
    expect(written.status).toBe(200);
    expect(written.json).toMatchObject({ version: 2, folded_notes: 2 });
    expect((await call("GET", "/notes", auth)).json.total).toBe(0);
    const again = await putCold(auth, { text: "x", version: 2, consolidation_id: claim.json.consolidation_id });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("conflict");
    const history = await call("GET", "/cold/consolidations", auth);
    expect(history.json.consolidations.map((c: { status: string }) => c.status)).toEqual(["done", "done"]);
    const empty = await call("POST", "/cold/consolidations", { ...auth, body: {} });
    expect(empty.json).toMatchObject({ consolidation_id: null, notes: [] });
  });

  it("a stale version with a consolidation id deletes no note", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await note(auth, { text: "Uses vim" });
    const claim = await call("POST", "/cold/consolidations", { ...auth, body: {} });
    await putCold(auth, { text: "someone else", version: 0 });
    const stale = await putCold(auth, { text: "- Uses vim", version: 0, consolidation_id: claim.json.consolidation_id });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("memory_changed");
    expect((await call("GET", "/notes", auth)).json.total).toBe(1);
    expect((await call("GET", "/cold", auth)).json).toMatchObject({ text: "someone else", version: 1 });
  });

  it("never shows or changes another tenant's cold memory", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const authB = { token: b.token, mind: b.mind.id };
    await putCold(authB, { text: "b's memory", version: 0 });
    await note(authB, { text: "b's note" });
    const claimB = await call("POST", "/cold/consolidations", { ...authB, body: {} });
    const keyA = await newKey(a.token, a.mind.id);
    const asA = { token: a.token, mind: b.mind.id };
    for (const [method, path, body] of [
      ["GET", "/cold", undefined],
      ["PUT", "/cold", { text: "x", version: 1 }],
      ["GET", "/cold/versions", undefined],
      ["GET", "/cold/versions/1", undefined],
      ["GET", "/cold/diff?from=0&to=1", undefined],
      ["POST", "/cold/rollback", { version: 1 }],
      ["POST", "/cold/consolidations", {}],
      ["GET", "/cold/consolidations", undefined],
      ["GET", "/usage", undefined],
    ] as const) {
      expect((await call(method, path, { ...asA, body })).status, `${method} ${path}`).toBe(404);
      expect((await call(method, path, { token: keyA.key, mind: b.mind.id, body })).status, `key ${method} ${path}`).toBe(404);
      expect((await call(method, path, { body })).status, `anonymous ${method} ${path}`).toBe(401);
    }
    expect((await call("GET", "/cold/versions/1", { token: keyA.key })).status).toBe(404);
    const foreignClaim = await putCold({ token: keyA.key }, { text: "x", version: 0, consolidation_id: claimB.json.consolidation_id });
    expect(foreignClaim.status).toBe(404);
    expect((await call("GET", "/cold/consolidations", { token: keyA.key })).json.consolidations).toEqual([]);
    expect((await call("GET", "/cold", authB)).json).toMatchObject({ text: "b's memory", version: 1 });
    expect((await call("GET", "/notes", authB)).json.total).toBe(1);
  });

  it("rejects bad input with a 400 and writes nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const bad: unknown[] = [
      {},
      { text: "x" },
      { version: 0 },
      { text: "x", version: -1 },
      { text: "x", version: 1.5 },
      { text: "x", version: "0" },
      { text: "x".repeat(32_001), version: 0 },
      { text: "x", version: 0, extra: true },
      { text: "x", version: 0, consolidation_id: "" },
    ];
    for (const body of bad) expect((await putCold(auth, body as Record<string, unknown>)).status, JSON.stringify(body).slice(0, 60)).toBe(400);
    expect((await putCold(auth, { text: "ok", version: 0, consolidation_id: "cons_missing" })).status).toBe(404);
    for (const path of ["/cold/versions/abc", "/cold/versions/0", "/cold/versions/-2", "/cold/diff", "/cold/diff?from=x", "/cold/diff?from=-1", "/cold/versions?limit=0"]) {
      expect((await call("GET", path, auth)).status, path).toBe(400);
    }
    expect((await call("GET", "/cold/versions/5", auth)).status).toBe(404);
    expect((await call("GET", "/cold/diff?from=0&to=5", auth)).status).toBe(404);
    for (const body of [{}, { version: 0 }, { version: "1" }, { version: 1, x: 1 }]) {
      expect((await call("POST", "/cold/rollback", { ...auth, body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call("POST", "/cold/rollback", { ...auth, body: { version: 9 } })).status).toBe(404);
    for (const body of [{ limit: 0 }, { limit: 201 }, { limit: "5" }, { other: 1 }]) {
      expect((await call("POST", "/cold/consolidations", { ...auth, body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call("GET", "/cold", auth)).json.version).toBe(0);
  });
});

describe("usage, jobs and erasing a mind", () => {
  it("documents the new routes in the OpenAPI document", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(["/notes", "/notes/search", "/cold", "/cold/versions/{version}", "/cold/diff", "/cold/rollback", "/usage", "/jobs"]),
    );
  });

  it("shows the mind's ledger and budget to its owner and its keys", async () => {
    const t = await newTenant();
    const mind = await newMind(t.token, { settings: { daily_token_budget: 5000 } });
    const key = await newKey(t.token, mind.id);
    const byKey = await call("GET", "/usage", { token: key.key });
    expect(byKey.status).toBe(200);
    expect(byKey.json).toMatchObject({ mind_id: mind.id, daily_token_budget: 5000, used_today: 0, days: [] });
    expect((await call("GET", "/usage", { token: t.token, mind: mind.id })).status).toBe(200);
    expect((await call("GET", "/usage?days=0", { token: key.key })).status).toBe(400);
    expect((await call("GET", "/usage?days=401", { token: key.key })).status).toBe(400);
    expect((await call("GET", "/usage", { token: t.token })).status).toBe(400);
  });

  it("GET /jobs answers the admin token only", async () => {
    const t = await newTenant();
    const key = await newKey(t.token, t.mind.id);
    expect((await call("GET", "/jobs")).status).toBe(401);
    expect((await call("GET", "/jobs", { token: "not-the-admin-token" })).status).toBe(401);
    expect((await call("GET", "/jobs", { token: t.token })).status).toBe(403);
    expect((await call("GET", "/jobs", { token: key.key })).status).toBe(403);
    const ok = await call("GET", "/jobs", { token: ADMIN_TOKEN });
    expect(ok.status).toBe(200);
    expect(Array.isArray(ok.json.runs)).toBe(true);
    expect((await call("GET", "/jobs?job=nope", { token: ADMIN_TOKEN })).status).toBe(400);
    expect((await call("GET", "/jobs?limit=0", { token: ADMIN_TOKEN })).status).toBe(400);
  });

  it("erasing a mind removes its notes and cold memory and counts them", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await note(auth, { text: "one" });
    await note(auth, { text: "two" });
    await putCold(auth, { text: "doc", version: 0 });
    await putCold(auth, { text: "doc 2", version: 1 });
    const erased = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    expect(erased.json.deleted).toMatchObject({ notes: 2, cold_memory: 1, cold_versions: 2, consolidations: 0, llm_usage: 0 });
    expect((await call("GET", "/cold", auth)).status).toBe(404);
  });
});

import { env } from "cloudflare:workers";
import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memories } from "../../src/db/schema";
import { priorityRank } from "../../src/memory/filters";
import { dayOf } from "../../src/memory/time";
import { call, newKey, newTenant, store } from "../helpers";
import { testDeps } from "../support/deps";

const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

describe("POST /memory", () => {
  it("a human's write is user-sourced, verified, confidence 1.0, whatever the body says", async () => {
    const t = await newTenant();
    const res = await call("POST", "/memory", {
      token: t.token,
      mind: t.mind.id,
      body: {
        category: "preference",
        key: "coffee_order",
        content: "Flat white, no sugar",
        tags: ["Coffee", "morning"],
        priority: "high",
        source: "agent",
        verified: false,
        id: "mem_forged",
        mind_id: "mind_other",
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      category: "preference",
      key: "coffee_order",
      tags: ["coffee", "morning"],
      priority: "high",
      source: "user",
      verified: true,
      confidence: 1,
      agent: "default",
      mind_id: t.mind.id,
      expires_at: null,
    });
    expect(res.json.id).toMatch(/^mem_/);
    expect(res.json.id).not.toBe("mem_forged");
  });

  it("an agent's write is agent-sourced, unverified, confidence 0.7 unless given", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const plain = await store({ token: key }, { key: "a", content: "agent fact", verified: true, source: "user" });
    expect(plain).toMatchObject({ source: "agent", verified: false, confidence: 0.7 });
    const sure = await store({ token: key }, { key: "b", content: "agent fact", confidence: 0.95 });
    expect(sure.confidence).toBe(0.95);
  });

  it("updates in place when (category, key) exists: no duplicate, history kept", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const first = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "city", content: "Lives in Kazan", tags: ["home", "city"] } });
    const second = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "city", content: "Lives in Moscow" } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.json.id).toBe(first.json.id);
    expect(second.json.content).toBe("Lives in Moscow");
    expect(second.json.tags).toEqual(["home", "city"]);

    const other = await store(auth, { category: "identity", key: "city", content: "Born in Kazan" });
    expect(other.id).not.toBe(first.json.id);

    const list = await call("GET", "/memory?category=fact", auth);
    expect(list.json.total).toBe(1);

    const history = await call("GET", `/memory/${first.json.id}/history`, auth);
    expect(history.json.history.map((h: { action: string }) => h.action)).toEqual(["create", "update"]);
    expect(history.json.history[1]).toMatchObject({ old_content: "Lives in Kazan", new_content: "Lives in Moscow" });
    expect(history.json.history[0].actor).toBe(`user:${t.accountId}`);
  });

  it("an overwrite through POST records the fields it changed, as an edit does", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const agent = await newKey(t.token, t.mind.id);
    const first = await store(auth, { category: "fact", key: "desk", content: "Desk by the window", tags: ["office"] });
    await store(auth, { category: "fact", key: "desk", content: "Desk by the window" });
    await store({ token: agent.key }, { category: "fact", key: "desk", content: "Desk by the door", tags: ["office", "move"], priority: "high", expires_at: "2031-01-01T00:00:00Z" });
    const history = (await call("GET", `/memory/${first.id}/history`, auth)).json.history;
    expect(history.map((h: { action: string }) => h.action)).toEqual(["create", "update", "update"]);
    expect(history[0].changes).toBeNull();
    // The same text, tags left out and the same provenance: nothing else changed.
    expect(history[1].changes).toBeNull();
    expect(history[2]).toMatchObject({ old_content: "Desk by the window", new_content: "Desk by the door", actor: expect.stringMatching(/^key:/) });
    expect(history[2].changes).toEqual({
      priority: ["normal", "high"],
      tags: [["office"], ["office", "move"]],
      expires_at: [null, "2031-01-01T00:00:00.000Z"],
      confidence: [1, 0.7],
      source: ["user", "agent"],
      verified: [true, false],
    });
  });

  it("keeps agent namespaces apart for the same key", async () => {
    const t = await newTenant();
    const coder = await newKey(t.token, t.mind.id, "coder");
    const writer = await newKey(t.token, t.mind.id, "writer");
    const a = await store({ token: coder.key }, { key: "style", content: "tabs" });
    const b = await store({ token: writer.key }, { key: "style", content: "spaces" });
    expect(a.id).not.toBe(b.id);
    expect(a.agent).toBe("coder");
    const coderView = await call("GET", "/memory", { token: coder.key });
    expect(coderView.json.memories.map((m: { content: string }) => m.content)).toEqual(["tabs"]);
    const humanView = await call("GET", "/memory", { token: t.token, mind: t.mind.id });
    expect(humanView.json.total).toBe(2);
    const humanCoder = await call("GET", "/memory?agent=coder", { token: t.token, mind: t.mind.id });
    expect(humanCoder.json.total).toBe(1);
  });

  it("rejects bad input with a 400 naming the field, and stores nothing", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const cases: [Record<string, unknown>, string][] = [
      [{ category: "gossip", key: "a", content: "x" }, "category"],
      [{ category: "fact", key: "Not Snake", content: "x" }, "key"],
      [{ category: "fact", key: "a", content: "" }, "content"],
      [{ category: "fact", key: "a", content: "x".repeat(8001) }, "content"],
      [{ category: "fact", key: "a", content: "x", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "tags"],
      [{ category: "fact", key: "a", content: "x", tags: ["x".repeat(41)] }, "tags"],
      [{ category: "fact", key: "a", content: "x", priority: "urgent" }, "priority"],
      [{ category: "fact", key: "a", content: "x", confidence: 1.5 }, "confidence"],
      [{ category: "fact", key: "a", content: "x", expires_at: "tomorrow" }, "expires_at"],
      [{ category: "fact", key: "a", content: "x", colour: "red" }, "colour"],
    ];
    for (const [body, field] of cases) {
      const res = await call("POST", "/memory", { ...auth, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json.error.message).toContain(field);
    }
    expect((await call("GET", "/memory", auth)).json.total).toBe(0);
  });
});

describe("GET, PUT, DELETE /memory/:id", () => {
  it("reads, updates (provenance follows the writer) and deletes a memory", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const m = await store(auth, { key: "editor", content: "Uses vim", tags: ["tools", "editor"] });
    expect((await call("GET", `/memory/${m.id}`, auth)).json.content).toBe("Uses vim");

    const { key } = await newKey(t.token, t.mind.id);
    const byAgent = await call("PUT", `/memory/${m.id}`, { token: key, body: { content: "Uses helix" } });
    expect(byAgent.status).toBe(200);
    expect(byAgent.json).toMatchObject({ content: "Uses helix", source: "agent", verified: false, tags: ["tools", "editor"] });

    const byHuman = await call("PUT", `/memory/${m.id}`, { ...auth, body: { priority: "critical", tags: ["IDE"] } });
    expect(byHuman.json).toMatchObject({ content: "Uses helix", priority: "critical", tags: ["ide"], source: "user", verified: true });

    const empty = await call("PUT", `/memory/${m.id}`, { ...auth, body: {} });
    expect(empty.status).toBe(400);

    expect((await call("DELETE", `/memory/${m.id}`, auth)).status).toBe(204);
    expect((await call("GET", `/memory/${m.id}`, auth)).status).toBe(404);
    expect((await call("DELETE", `/memory/${m.id}`, auth)).status).toBe(404);

    const history = await call("GET", `/memory/${m.id}/history`, auth);
    expect(history.json.history.map((h: { action: string }) => h.action)).toEqual(["create", "update", "update", "delete"]);
  });

  it("a missing id is 404 for every verb", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    expect((await call("GET", "/memory/mem_missing", auth)).status).toBe(404);
    expect((await call("PUT", "/memory/mem_missing", { ...auth, body: { content: "x" } })).status).toBe(404);
    expect((await call("POST", "/memory/mem_missing/verify", auth)).status).toBe(404);
    expect((await call("GET", "/memory/mem_missing/history", auth)).status).toBe(404);
  });
});

describe("verification", () => {
  it("a human verifies an agent's memory; a mind key never can", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const m = await store({ token: key }, { key: "deadline", content: "Ship on Friday" });
    const refused = await call("POST", `/memory/${m.id}/verify`, { token: key });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe("forbidden");
    expect((await call("GET", `/memory/${m.id}`, { token: key })).json.verified).toBe(false);

    const ok = await call("POST", `/memory/${m.id}/verify`, { token: t.token, mind: t.mind.id });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ verified: true, source: "agent" });
    const history = await call("GET", `/memory/${m.id}/history`, { token: t.token, mind: t.mind.id });
    expect(history.json.history.at(-1).action).toBe("verify");
  });
});

describe("GET /memory filters and paging", () => {
  it("filters by category, tag (whole, case-insensitive), source and verified, and pages", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const { key } = await newKey(t.token, t.mind.id);
    await store(auth, { category: "skill", key: "rust", content: "Writes Rust", tags: ["lang", "systems"] });
    await store(auth, { category: "skill", key: "go", content: "Writes Go", tags: ["lang"] });
    await store({ token: key }, { category: "fact", key: "langley", content: "Visited Langley", tags: ["language-trip"] });

    const tag = await call("GET", "/memory?tag=LANG", auth);
    expect(tag.json.memories.map((m: { key: string }) => m.key).sort()).toEqual(["go", "rust"]);
    expect((await call("GET", "/memory?category=fact", auth)).json.total).toBe(1);
    expect((await call("GET", "/memory?source=agent", auth)).json.memories[0].key).toBe("langley");
    expect((await call("GET", "/memory?verified=true", auth)).json.total).toBe(2);

    const page1 = await call("GET", "/memory?limit=2&offset=0", auth);
    const page2 = await call("GET", "/memory?limit=2&offset=2", auth);
    expect(page1.json).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page1.json.memories).toHaveLength(2);
    expect(page2.json.memories).toHaveLength(1);
    expect((await call("GET", "/memory?limit=500", auth)).status).toBe(400);
    expect((await call("GET", "/memory?verified=maybe", auth)).status).toBe(400);
  });
});

describe("GET /memory/recall", () => {
  it("prints Synapse's layout, critical → low then newest first, expired hidden", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const { key } = await newKey(t.token, t.mind.id);
    await store(auth, { key: "low_one", content: "low priority", priority: "low" });
    await store(auth, { key: "normal_old", content: "normal older" });
    await store({ token: key }, { key: "normal_new", content: "normal newer", tags: ["x", "y"] });
    await store(auth, { key: "critical_one", content: "never deploy on Friday", priority: "critical" });
    await store(auth, { key: "gone", content: "expired thing", priority: "critical", expires_at: hoursFromNow(-1) });

    const res = await call("GET", "/memory/recall", auth);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/plain");
    expect(res.text).toContain(`# Memory recall: ${t.mind.name}`);
    expect(res.text).toContain("# 4 memories (3 verified, 1 unverified)");
    const order = [...res.text.matchAll(/^key: (\w+)$/gm)].map((m) => m[1]);
    expect(order).toEqual(["critical_one", "normal_new", "normal_old", "low_one"]);
    // Each memory carries the day it was stated, as a person writes a date.
    const today = dayOf(new Date().toISOString());
    expect(today).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    expect(res.text).toContain(`[001] fact (CRITICAL) [verified]\nkey: critical_one\ncontent: never deploy on Friday\ndate: ${today}\ntags: `);
    expect(res.text).toContain(`[002] fact (NORMAL) [unverified]\nkey: normal_new\ncontent: normal newer\ndate: ${today}\ntags: x, y`);
    expect(res.text).not.toContain("expired thing");
  });

  it("honours limit, category and a token budget", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    for (let i = 0; i < 10; i++) await store(auth, { key: `fact_${i}`, content: `fact number ${i} `.repeat(10) });
    await store(auth, { category: "skill", key: "sql", content: "SQL" });
    expect([...(await call("GET", "/memory/recall?limit=3", auth)).text.matchAll(/^key:/gm)]).toHaveLength(3);
    expect((await call("GET", "/memory/recall?category=skill", auth)).text).toContain("key: sql\n");

    const full = await call("GET", "/memory/recall", auth);
    const budget = 150;
    const cut = await call("GET", `/memory/recall?max_tokens=${budget}`, auth);
    const tokens = Number(cut.headers.get("X-Token-Count"));
    expect(tokens).toBeLessThanOrEqual(budget);
    expect(Number(full.headers.get("X-Token-Count"))).toBeGreaterThan(budget);
    const kept = [...cut.text.matchAll(/^key:/gm)].length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(11);
    expect((await call("GET", "/memory/recall?max_tokens=0", auth)).status).toBe(400);
  });

  it("walks the mind's priority index in recall order instead of sorting every memory", async () => {
    const query = testDeps()
      .directory.select({ id: memories.id })
      .from(memories)
      .where(eq(memories.mindId, "mind_x"))
      .orderBy(desc(priorityRank), desc(memories.updatedAt), desc(memories.id))
      .limit(5)
      .toSQL();
    const { results } = await env.DB.prepare(`explain query plan ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>();
    const plan = results.map((r) => r.detail).join("; ");
    expect(plan).toContain("USING INDEX memories_mind_recall");
    expect(plan).not.toContain("TEMP B-TREE");
  });
});

describe("GET /memory/by-tag and /memory/expiring", () => {
  it("by-tag finds whole tags only and hides expired memories", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "a", content: "a", tags: ["Work", "urgent"] });
    await store(auth, { key: "b", content: "b", tags: ["workshop"] });
    await store(auth, { key: "c", content: "c", tags: ["work"], expires_at: hoursFromNow(-2) });
    const res = await call("GET", "/memory/by-tag?tag=work", auth);
    expect(res.json.memories.map((m: { key: string }) => m.key)).toEqual(["a"]);
    expect((await call("GET", "/memory/by-tag", auth)).status).toBe(400);
  });

  it("expiring lists memories expiring within the window, soonest first", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "in_two_days", content: "x", expires_at: hoursFromNow(48) });
    await store(auth, { key: "in_one_hour", content: "x", expires_at: hoursFromNow(1) });
    await store(auth, { key: "in_ten_days", content: "x", expires_at: hoursFromNow(240) });
    await store(auth, { key: "already_gone", content: "x", expires_at: hoursFromNow(-1) });
    await store(auth, { key: "forever", content: "x" });
    const keys = async (within: string) =>
      (await call("GET", `/memory/expiring?within=${within}`, auth)).json.memories.map((m: { key: string }) => m.key);
    expect(await keys("7d")).toEqual(["in_one_hour", "in_two_days"]);
    expect(await keys("3h")).toEqual(["in_one_hour"]);
    expect(await keys("30m")).toEqual([]);
    for (const bad of ["7w", "d", "-1d", "1.5h"]) {
      const res = await call("GET", `/memory/expiring?within=${bad}`, auth);
      expect(res.status, bad).toBe(400);
      expect(res.json.error.message).toContain("duration");
    }
  });

  it("an expiry can be cleared with null", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const m = await store(auth, { key: "temp", content: "x", expires_at: hoursFromNow(-1) });
    expect((await call("GET", "/memory/recall", auth)).text).not.toContain("key: temp");
    await call("PUT", `/memory/${m.id}`, { ...auth, body: { expires_at: null } });
    expect((await call("GET", "/memory/recall", auth)).text).toContain("key: temp");
  });
});

describe("storage", () => {
  it("keeps the search index in step with the table", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const m = await store(auth, { key: "pet", content: "Has a cat named Tom" });
    await call("PUT", `/memory/${m.id}`, { ...auth, body: { content: "Has a dog named Rex" } });
    const check = await env.DB.prepare("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)").run();
    expect(check.success).toBe(true);
    expect((await call("GET", "/memory/search?q=cat", auth)).json.results).toHaveLength(0);
    expect((await call("GET", "/memory/search?q=dog", auth)).json.results).toHaveLength(1);
  });
});

describe("a memory's context", () => {
  it("is stored, searched below the memory's own words, and shown only with include=context", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const around = "Anna: we drove to the lake at Pskov last summer";
    const inContext = await store(auth, { key: "trip", content: "Went camping with the kids", context: around });
    expect(inContext.context).toBe(around);
    const own = await store(auth, { key: "lake", content: "The Pskov lake house belongs to Anna's aunt" });

    const found = await call("GET", `/memory/search?q=${encodeURIComponent("Pskov lake")}`, auth);
    expect(found.json.results.map((r: any) => r.id)).toEqual([own.id, inContext.id]);
    expect(found.json.results.every((r: any) => !("context" in r))).toBe(true);
    const read = await call("GET", `/memory/${inContext.id}`, auth);
    expect(read.json.content).toBe("Went camping with the kids");
    expect(read.json).not.toHaveProperty("context");
    expect((await call("GET", `/memory/${inContext.id}?include=context`, auth)).json.context).toBe(around);
    const withContext = await call("GET", `/memory/search?q=camping&include=context`, auth);
    expect(withContext.json.results[0].context).toBe(around);
  });

  it("is kept when the memory is stored again without one, replaced when given, and bounded", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const m = await store(auth, { key: "car", content: "Drives a Volvo", context: "talk about the winter tyres" });
    await store(auth, { key: "car", content: "Drives a Volvo estate" });
    expect((await call("GET", `/memory/search?q=tyres`, auth)).json.results.map((r: any) => r.id)).toEqual([m.id]);
    await call("PUT", `/memory/${m.id}`, { ...auth, body: { context: "a chat about summer holidays" } });
    expect((await call("GET", `/memory/search?q=tyres`, auth)).json.results).toEqual([]);
    expect((await call("GET", `/memory/search?q=holidays`, auth)).json.results).toHaveLength(1);
    const check = await env.DB.prepare("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)").run();
    expect(check.success).toBe(true);

    const long = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "long", content: "x", context: "y".repeat(4001) } });
    expect(long.status).toBe(400);
    expect(long.text).toContain("context");
  });
});


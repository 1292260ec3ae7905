import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, newHuman, newKey, newMind, newTenant, unique } from "../helpers";

describe("service basics", () => {
  it("answers /health without auth", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, service: "edgemind" });
  });

  it("publishes an OpenAPI document generated from the route schemas, and a docs page", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe("3.1.0");
    for (const path of ["/auth/token", "/minds", "/minds/{id}/keys", "/memory", "/memory/search", "/memory/{id}/verify"]) {
      expect(Object.keys(doc.json.paths)).toContain(path);
    }
    expect(doc.json.paths["/memory"].post.requestBody.content["application/json"].schema.properties.key.pattern).toBeDefined();
    const docs = await call("GET", "/docs");
    expect(docs.status).toBe(200);
    expect(docs.text).toContain("/openapi.json");
  });

  it("answers an unknown route with the error shape", async () => {
    const res = await call("GET", "/nowhere");
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("not_found");
  });
});

describe("POST /auth/token", () => {
  it("creates the account once and issues a token for it each time", async () => {
    const account = unique("alice");
    const first = await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: { account } });
    const second = await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: { account } });
    expect(first.status).toBe(200);
    expect(first.json.token.split(".")).toHaveLength(3);
    expect(second.json.account_id).toBe(first.json.account_id);
  });

  it("refuses anything but the admin token", async () => {
    const human = await newHuman();
    for (const token of [undefined, "wrong-admin-token-000000"]) {
      const res = await call("POST", "/auth/token", { token, body: { account: unique("mallory") } });
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe("unauthorized");
    }
    const person = await call("POST", "/auth/token", { token: human.token, body: { account: unique("mallory") } });
    expect(person.status).toBe(403);
    expect(person.json.error.code).toBe("forbidden");
  });

  it("rejects a missing account name and unknown fields", async () => {
    const empty = await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json.error.message).toContain("account");
    const extra = await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: { account: "x", role: "admin" } });
    expect(extra.status).toBe(400);
    expect(extra.json.error.message).toContain("role");
  });
});

describe("minds", () => {
  it("creates, lists, reads, updates and deletes a mind", async () => {
    const { token } = await newHuman();
    const created = await call("POST", "/minds", { token, body: { name: "Work", locale: "ru", retention_hours: 720 } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "Work", locale: "ru", retention_hours: 720 });
    expect(created.json.settings).toEqual({
      history_cap: 200,
      llm_window: 12,
      extract_every: 20,
      ephemeral_ttl: 3,
      daily_token_budget: null,
      max_memories: 100_000,
      max_notes: 100_000,
      max_bytes: 256 * 1024 * 1024,
    });
    const id = created.json.id;

    const list = await call("GET", "/minds", { token });
    expect(list.json.minds.map((m: { id: string }) => m.id)).toEqual([id]);

    const patched = await call("PATCH", `/minds/${id}`, {
      token,
      body: { name: "Work 2", settings: { ephemeral_ttl: 5, llm_window: 20 } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.name).toBe("Work 2");
    expect(patched.json.settings).toMatchObject({ ephemeral_ttl: 5, llm_window: 20, history_cap: 200 });
    expect((await call("GET", `/minds/${id}`, { token })).json.settings.ephemeral_ttl).toBe(5);

    const removed = await call("DELETE", `/minds/${id}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.json.deleted.minds).toBe(1);
    expect((await call("GET", `/minds/${id}`, { token })).status).toBe(404);
  });

  it("validates settings ranges and names the field at fault", async () => {
    const { token } = await newHuman();
    const mind = await newMind(token);
    for (const settings of [{ ephemeral_ttl: 2 }, { ephemeral_ttl: 6 }, { history_cap: 0 }, { llm_window: 1.5 }]) {
      const res = await call("PATCH", `/minds/${mind.id}`, { token, body: { settings } });
      expect(res.status).toBe(400);
      expect(res.json.error.message).toContain(Object.keys(settings)[0]!);
    }
    const unknown = await call("PATCH", `/minds/${mind.id}`, { token, body: { settings: { colour: "red" } } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain("colour");
    expect((await call("GET", `/minds/${mind.id}`, { token })).json.settings.ephemeral_ttl).toBe(3);
  });

  it("refuses a bad locale and an empty name", async () => {
    const { token } = await newHuman();
    expect((await call("POST", "/minds", { token, body: { name: "x", locale: "de" } })).status).toBe(400);
    expect((await call("POST", "/minds", { token, body: { name: "  " } })).status).toBe(400);
  });

  it("holds at most 100 unrevoked keys a mind: the next is a 409 until one is revoked; the list shows the unrevoked first", async () => {
    const t = await newTenant();
    const path = `/minds/${t.mind.id}/keys`;
    const made: string[] = [];
    for (let i = 0; i < 100; i++) made.push((await call("POST", path, { token: t.token, body: {} })).json.id);
    const over = await call("POST", path, { token: t.token, body: {} });
    expect(over.status).toBe(409);
    expect(over.json.error).toMatchObject({ code: "conflict", message: "a mind holds at most 100 unrevoked keys: revoke one first" });
    expect((await call("DELETE", `${path}/${made[0]}`, { token: t.token })).status).toBe(204);
    expect((await call("POST", path, { token: t.token, body: {} })).status).toBe(201);
    const listed = (await call("GET", path, { token: t.token })).json.keys as { id: string; revoked_at: string | null }[];
    expect(listed).toHaveLength(101);
    expect(listed.at(-1)).toMatchObject({ id: made[0], revoked_at: expect.any(String) });
    expect(listed.slice(0, 100).every((k) => k.revoked_at === null)).toBe(true);
  });

  it("deleting a mind erases its memories and keys and reports the counts", async () => {
    const t = await newTenant();
    await newKey(t.token, t.mind.id);
    for (const key of ["a", "b"]) {
      await call("POST", "/memory", { token: t.token, mind: t.mind.id, body: { category: "fact", key, content: key } });
    }
    const res = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    expect(res.json.deleted).toMatchObject({ minds: 1, memories: 2, memory_history: 2, mind_keys: 1 });
  });
});

describe("mind keys", () => {
  it("returns the secret once, lists only prefixes, and revokes", async () => {
    const t = await newTenant();
    const created = await call("POST", `/minds/${t.mind.id}/keys`, { token: t.token, body: { agent: "coder" } });
    expect(created.status).toBe(201);
    expect(created.json.key.startsWith(created.json.prefix + ".")).toBe(true);
    expect(created.json.agent).toBe("coder");

    const listed = await call("GET", `/minds/${t.mind.id}/keys`, { token: t.token });
    expect(listed.json.keys).toHaveLength(1);
    expect(listed.json.keys[0].prefix).toBe(created.json.prefix);
    expect(JSON.stringify(listed.json)).not.toContain(created.json.key);

    const use = await call("GET", "/memory", { token: created.json.key });
    expect(use.status).toBe(200);

    expect((await call("DELETE", `/minds/${t.mind.id}/keys/${created.json.id}`, { token: t.token })).status).toBe(204);
    expect((await call("GET", "/memory", { token: created.json.key })).status).toBe(401);
    expect((await call("DELETE", `/minds/${t.mind.id}/keys/${created.json.id}`, { token: t.token })).status).toBe(404);
  });

  it("takes an optional name, bounded, and lists it", async () => {
    const t = await newTenant();
    const path = `/minds/${t.mind.id}/keys`;
    const named = await call("POST", path, { token: t.token, body: { name: "  laptop  " } });
    expect(named.status).toBe(201);
    expect(named.json.name).toBe("laptop");
    await call("POST", path, { token: t.token, body: {} });
    for (const name of ["", "x".repeat(81), "two\nlines"]) {
      const res = await call("POST", path, { token: t.token, body: { name } });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.json.error.message).toContain("name");
    }
    const listed = (await call("GET", path, { token: t.token })).json.keys as { name: string | null }[];
    expect(listed.map((k) => k.name).sort()).toEqual(["laptop", null]);
  });

  it("rejects a badly named agent namespace", async () => {
    const t = await newTenant();
    const res = await call("POST", `/minds/${t.mind.id}/keys`, { token: t.token, body: { agent: "Bad Agent!" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("agent");
  });

  it("a mind key cannot manage minds or keys", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    expect((await call("GET", "/minds", { token: key })).status).toBe(403);
    expect((await call("POST", `/minds/${t.mind.id}/keys`, { token: key, body: {} })).status).toBe(403);
  });
});

describe("request hygiene", () => {
  it("answers 413 for a body over the limit", async () => {
    const t = await newTenant();
    const res = await call("POST", "/memory", {
      token: t.token,
      mind: t.mind.id,
      body: { category: "fact", key: "big", content: "x".repeat(70 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("payload_too_large");
  });

  it("answers 400 for malformed JSON", async () => {
    const t = await newTenant();
    const res = await call("POST", "/memory", {
      token: t.token,
      mind: t.mind.id,
      rawBody: '{"category": "fact", "key": ',
      headers: { "Content-Type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_request");
  });

  it("tells a caller whose credentials fail what to send instead", async () => {
    const t = await newTenant();
    const missing = await call("GET", "/memory");
    expect(missing.status).toBe(401);
    expect(missing.json.error.message).toMatch(/Authorization: Bearer .*mind key.*POST \/auth\/token/);
    const { key, id } = await newKey(t.token, t.mind.id);
    await call("DELETE", `/minds/${t.mind.id}/keys/${id}`, { token: t.token });
    expect((await call("GET", "/memory", { token: key })).json.error.message).toBe("unknown or revoked mind key");
    const forged = await call("GET", "/memory", { token: `${t.token.slice(0, -4)}AAAA`, mind: t.mind.id });
    expect(forged.status).toBe(401);
    expect(forged.json.error.message).toMatch(/invalid or expired token: .*POST \/auth\/token/);
  });

  it("names a missing or non-numeric query parameter plainly", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    for (const path of ["/cold/diff", "/cold/diff?from=x"]) {
      const res = await call("GET", path, auth);
      expect(res.status, path).toBe(400);
      expect(res.json.error.message, path).toBe("from: missing or not a number");
    }
    expect((await call("GET", "/memory/search", auth)).json.error.message).toBe("q: required (string)");
  });

  it("a human must name the mind", async () => {
    const t = await newTenant();
    const res = await call("GET", "/memory", { token: t.token });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("X-Mind-Id");
  });
});

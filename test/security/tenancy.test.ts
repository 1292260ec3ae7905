import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { mindSearchToken, toMatchExpression } from "../../src/memory/normalize";
import { type CallResult, call, newKey, newTenant, store } from "../helpers";
import { readApiDocument, sample } from "../support/openapi";
import { dataOf, rowsEverywhere } from "../support/shards";

const JWT_SECRET = new TextEncoder().encode("test-jwt-secret-0123456789abcdef");
const SECRET_CONTENT = "victim-secret-content-7f3a";

interface Victim {
  token: string;
  mindId: string;
  memoryId: string;
  otherNamespaceMemoryId: string;
  keyId: string;
}

/** Every route that touches a mind's data, aimed at the victim's objects. */
function victimRoutes(v: Victim): { method: string; path: string; body?: unknown }[] {
  const memoryBody = { category: "fact", key: "planted", content: "planted by attacker" };
  return [
    { method: "GET", path: "/memory" },
    { method: "POST", path: "/memory", body: memoryBody },
    { method: "GET", path: "/memory/recall" },
    { method: "GET", path: "/memory/search?q=victim" },
    { method: "GET", path: "/memory/by-tag?tag=secret" },
    { method: "GET", path: "/memory/expiring?within=30d" },
    { method: "GET", path: `/memory/${v.memoryId}` },
    { method: "PUT", path: `/memory/${v.memoryId}`, body: { content: "overwritten" } },
    { method: "DELETE", path: `/memory/${v.memoryId}` },
    { method: "POST", path: `/memory/${v.memoryId}/verify` },
    { method: "GET", path: `/memory/${v.memoryId}/history` },
    { method: "GET", path: `/minds/${v.mindId}` },
    { method: "PATCH", path: `/minds/${v.mindId}`, body: { name: "pwned" } },
    { method: "DELETE", path: `/minds/${v.mindId}` },
    { method: "POST", path: `/minds/${v.mindId}/keys`, body: {} },
    { method: "GET", path: `/minds/${v.mindId}/keys` },
    { method: "DELETE", path: `/minds/${v.mindId}/keys/${v.keyId}` },
  ];
}

/** Everything tenant data holds, apart from the attacker's own key use timestamps. */
async function snapshot(): Promise<string> {
  const tables = [
    "SELECT id, name, settings, updated_at FROM minds ORDER BY id",
    "SELECT id, mind_id, agent, prefix, revoked_at FROM mind_keys ORDER BY id",
    "SELECT id, mind_id, agent, key, content, tags, source, verified, updated_at FROM memories ORDER BY id",
    "SELECT id, mind_id, memory_id, action FROM memory_history ORDER BY id",
  ];
  // Every database: the directory and each shard.
  const results = await Promise.all(tables.map((q) => rowsEverywhere(q)));
  return JSON.stringify(results);
}

function base64url(value: string): string {
  return btoa(value).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

describe("tenancy and credentials", () => {
  let victim: Victim;
  const attackers: { name: string; token: string; mind?: string; expect: number[] }[] = [];

  beforeAll(async () => {
    const v = await newTenant();
    const scoped = await newKey(v.token, v.mind.id, "coder");
    const memory = await store({ token: scoped.key }, { key: "secret", content: SECRET_CONTENT, tags: ["secret"] });
    const other = await store({ token: v.token, mind: v.mind.id }, { key: "secret_two", content: SECRET_CONTENT, tags: ["secret"] }, "?agent=writer");
    const victimKey = await newKey(v.token, v.mind.id);
    victim = { token: v.token, mindId: v.mind.id, memoryId: memory.id, otherNamespaceMemoryId: other.id, keyId: victimKey.id };

    const intruder = await newTenant();
    const intruderKey = await newKey(intruder.token, intruder.mind.id);
    const revoked = await newKey(v.token, v.mind.id);
    await call("DELETE", `/minds/${v.mind.id}/keys/${revoked.id}`, { token: v.token });

    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: v.accountId };
    const expired = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("edgemind")
      .setAudience("edgemind-api")
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(JWT_SECRET);
    const wrongAudience = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("edgemind")
      .setAudience("someone-else")
      .setExpirationTime(now + 3600)
      .sign(JWT_SECRET);
    const wrongKey = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("edgemind")
      .setAudience("edgemind-api")
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode("another-secret-that-is-long-enough"));
    const [header, , signature] = v.token.split(".");
    const tampered = `${header}.${base64url(JSON.stringify({ sub: intruder.accountId, iss: "edgemind", aud: "edgemind-api", exp: now + 3600 }))}.${signature}`;
    const algNone = `${base64url('{"alg":"none","typ":"JWT"}')}.${base64url(JSON.stringify({ sub: v.accountId, iss: "edgemind", aud: "edgemind-api", exp: now + 3600 }))}.`;

    const unauth = [401];
    attackers.push(
      { name: "another account's JWT", token: intruder.token, mind: v.mind.id, expect: [404] },
      { name: "another mind's key naming the victim mind", token: intruderKey.key, mind: v.mind.id, expect: [403, 404] },
      { name: "another mind's key", token: intruderKey.key, expect: [403, 404] },
      { name: "a revoked key", token: revoked.key, expect: unauth },
      { name: "an expired JWT", token: expired, mind: v.mind.id, expect: unauth },
      { name: "a JWT for another audience", token: wrongAudience, mind: v.mind.id, expect: unauth },
      { name: "a JWT signed with another secret", token: wrongKey, mind: v.mind.id, expect: unauth },
      { name: "a tampered JWT", token: tampered, mind: v.mind.id, expect: unauth },
      { name: "an alg:none JWT", token: algNone, mind: v.mind.id, expect: unauth },
      { name: "a made-up key", token: "emk_abcdefghijkl.nothing", expect: unauth },
      { name: "garbage", token: "not-a-token", mind: v.mind.id, expect: unauth },
    );
  });

  it("refuses every credential on every route, changes no row and leaks nothing", async () => {
    const before = await snapshot();
    // 11 credentials × 17 routes: the credentials try at once, each its routes in order.
    await Promise.all(
      attackers.map(async (attacker) => {
        for (const route of victimRoutes(victim)) {
          // Routes without an object id are answered from the caller's own mind when no mind is named.
          const ownData = !attacker.mind && attacker.name === "another mind's key" && !route.path.includes(victim.mindId) && !route.path.includes(victim.memoryId);
          const res = await call(route.method, route.path, { token: attacker.token, mind: attacker.mind, body: route.body });
          expect(res.text, `${attacker.name} ${route.method} ${route.path}`).not.toContain(SECRET_CONTENT);
          if (ownData) continue;
          expect(attacker.expect, `${attacker.name} ${route.method} ${route.path} → ${res.status} ${res.text}`).toContain(res.status);
        }
      }),
    );
    // The only write allowed is the intruder's key planting a memory in its own mind.
    const victimRows = (s: string) =>
      JSON.parse(s).map((rows: { mind_id?: string; id?: string }[]) =>
        rows.filter((r) => r.mind_id === victim.mindId || r.id === victim.mindId),
      );
    const after = await snapshot();
    expect(victimRows(after)).toEqual(victimRows(before));
    expect(victimRows(before).flat().length).toBeGreaterThan(5);
  });

  it("a key scoped to an agent namespace cannot reach another namespace", async () => {
    const scoped = await newKey(victim.token, victim.mindId, "coder");
    const before = await snapshot();
    const other = victim.otherNamespaceMemoryId;
    const attempts: [string, string, unknown?][] = [
      ["GET", `/memory/${other}`],
      ["PUT", `/memory/${other}`, { content: "overwritten" }],
      ["DELETE", `/memory/${other}`],
      ["GET", `/memory/${other}/history`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, { token: scoped.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    for (const path of ["/memory?agent=writer", "/memory/search?q=victim&agent=writer", "/memory/recall?agent=writer"]) {
      const res = await call("GET", path, { token: scoped.key });
      expect(res.status, path).toBe(403);
    }
    const write = await call("POST", "/memory?agent=writer", { token: scoped.key, body: { category: "fact", key: "x", content: "x" } });
    expect(write.status).toBe(403);
    const own = await call("GET", "/memory", { token: scoped.key });
    expect(own.json.memories.every((m: { agent: string }) => m.agent === "coder")).toBe(true);
    expect(await snapshot()).toBe(before);
  });

  it("a mind key can never verify, even its own mind's memory", async () => {
    const key = await newKey(victim.token, victim.mindId);
    const before = await snapshot();
    const res = await call("POST", `/memory/${victim.otherNamespaceMemoryId}/verify`, { token: key.key });
    expect(res.status).toBe(403);
    expect(await snapshot()).toBe(before);
  });
});

// The tenancy matrix: every route of the OpenAPI document (the route table the app builds its
// validation from) against three intruders. Nothing is listed by hand but what a route needs
// to aim at the victim: which of the victim's objects a path parameter names.

interface MatrixVictim {
  token: string;
  mindId: string;
  ids: Record<string, string>;
}

/** Which of the victim's objects a path parameter names, by the collection it follows. */
function fillPath(path: string, v: MatrixVictim): string {
  return path.replace(/\/([a-z]+)\/\{([A-Za-z]+)\}/g, (_m, collection: string, param: string) => {
    const id = param === "keyId" ? v.ids.key : param === "version" ? v.ids.version : v.ids[collection];
    if (id === undefined) throw new Error(`no victim object for ${collection}/{${param}} in ${path}`);
    return `/${collection}/${id}`;
  });
}

async function exportOf(v: MatrixVictim): Promise<string> {
  const res = await call("GET", `/minds/${v.mindId}/export`, { token: v.token });
  expect(res.status).toBe(200);
  // Everything but the moment of the export.
  return res.text.replace(/"exported_at":"[^"]*"/, "");
}

describe("the tenancy matrix, generated from the OpenAPI document", () => {
  it("every route refuses another mind's key, another account's token and a key of another namespace, and no row changes", async () => {
    const owner = await newTenant();
    const human = { token: owner.token, mind: owner.mind.id };
    const memory = await store(human, { key: "matrix_secret", content: SECRET_CONTENT }, "?agent=writer");
    const session = (await call("POST", "/sessions?agent=writer", { ...human, body: { task_name: "matrix" } })).json;
    await call("POST", `/sessions/${session.id}/messages`, { ...human, body: { role: "user", content: SECRET_CONTENT } });
    const note = (await call("POST", "/notes?agent=writer", { ...human, body: { text: SECRET_CONTENT } })).json;
    const cold = await call("PUT", "/cold?agent=writer", { ...human, body: { text: SECRET_CONTENT, version: 0 } });
    expect([memory.id, session.id, note.id, cold.status]).not.toContain(undefined);
    const key = await newKey(owner.token, owner.mind.id);
    // An ended import of the victim's mind, as an import's row.
    const importId = `imp_${owner.mind.id}`;
    await (await dataOf(owner.mind.id)).prepare("insert into imports (id, mind_id, state, restore, created_at, updated_at) values (?, ?, 'done', '{}', ?, ?)")
      .bind(importId, owner.mind.id, new Date().toISOString(), new Date().toISOString())
      .run();
    // A webhook wanting only the mind's erasure, at an address no DNS is asked for: nothing here is delivered.
    const webhook = await call("POST", `/minds/${owner.mind.id}/webhooks`, { token: owner.token, body: { url: "https://93.184.216.34/matrix", types: ["mind.erased"] } });
    expect(webhook.status).toBe(201);
    const victim: MatrixVictim = {
      token: owner.token,
      mindId: owner.mind.id,
      ids: {
        memory: memory.id, sessions: session.id, chats: session.chat.id, notes: note.id, minds: owner.mind.id, key: key.id, version: "1", import: importId,
        webhooks: webhook.json.id,
      },
    };

    const intruder = await newTenant();
    const attackers = [
      { name: "another mind's key", token: (await newKey(intruder.token, intruder.mind.id)).key, mind: owner.mind.id, agentQuery: false },
      { name: "another account's JWT", token: intruder.token, mind: owner.mind.id, agentQuery: false },
      { name: "a key scoped to another namespace", token: (await newKey(owner.token, owner.mind.id, "coder")).key, mind: undefined, agentQuery: true },
    ];

    const { routes, components } = await readApiDocument();
    // Tenant routes: the ones a bearer token opens. A human's own list and creation of minds,
    // the operator's routes and the OAuth-fronted /mcp are not a tenant's data.
    const tenantRoutes = routes.filter(
      (r) =>
        (r.op.security ?? []).length > 0 &&
        !["/auth/token", "/jobs", "/jobs/dead-letters/redrive", "/shards", "/shards/{name}/minds", "/shards/moves/{mind_id}", "/mcp", "/telegram/setup", "/telegram/webhook"].includes(r.path) &&
        !(r.path === "/minds" && ["GET", "POST"].includes(r.method)),
    );
    expect(tenantRoutes.length).toBeGreaterThan(40);

    const before = { export: await exportOf(victim), rows: await snapshot() };
    const failures: string[] = [];
    for (const route of tenantRoutes) {
      const query = new URLSearchParams();
      for (const p of route.op.parameters ?? []) {
        if (p.in === "query" && p.required) query.set(p.name, String(sample(p.schema, components)));
      }
      const json = route.op.requestBody?.content["application/json"];
      const ndjson = route.op.requestBody?.content["application/x-ndjson"];
      for (const attacker of attackers) {
        const q = new URLSearchParams(query);
        // Inside its own mind a scoped key aims at the victim's namespace by name.
        if (attacker.agentQuery && !route.path.includes("{")) q.set("agent", "writer");
        const target = `${fillPath(route.path, victim)}${q.size > 0 ? `?${q}` : ""}`;
        const res: CallResult = await call(route.method, target, {
          token: attacker.token,
          mind: attacker.mind,
          ...(json ? { body: sample(json.schema, components) } : {}),
          ...(ndjson ? { rawBody: "", headers: { "Content-Type": "application/x-ndjson" } } : {}),
        });
        if (![403, 404].includes(res.status) || res.text.includes(SECRET_CONTENT)) {
          failures.push(`${attacker.name}: ${route.method} ${target} → ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await exportOf(victim)).toBe(before.export);
    expect(await snapshot()).toBe(before.rows);
    expect(before.export).toContain(SECRET_CONTENT);
    // About 150 requests: more than the default test time on a busy machine.
  }, 240_000);
});

describe("the full-text index is per mind", () => {
  const TEXT = "Capybaras deploy the billing service every Tuesday";

  /** A mind holding the same memory, note and session message. */
  async function mindWithText() {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await store(auth, { key: "capybara_deploys", content: TEXT, context: TEXT });
    expect((await call("POST", "/notes", { ...auth, body: { text: TEXT, context: TEXT } })).status).toBe(201);
    const session = await call("POST", "/sessions", { ...auth, body: { task_name: "capybaras" } });
    for (const content of [TEXT, `${TEXT} again`]) {
      expect((await call("POST", `/sessions/${session.json.id}/messages`, { ...auth, body: { role: "user", content } })).status).toBe(201);
    }
    return auth;
  }

  const TABLES = [
    { fts: "memories_fts", rows: "memories", key: "rowid" },
    { fts: "notes_fts", rows: "notes", key: "rowid" },
    { fts: "messages_fts", rows: "messages", key: "id" },
  ];

  /** The minds of the rows a MATCH finds, with no mind filter at all. */
  async function mindsMatched(table: (typeof TABLES)[number], match: string): Promise<string[]> {
    // Every database: the two minds may live on different shards.
    const results = await rowsEverywhere<{ mind_id: string }>(
      `select r.mind_id from ${table.fts} f join ${table.rows} r on r.${table.key} = f.rowid where ${table.fts} match ?`,
      match,
    );
    return results.map((r) => r.mind_id);
  }

  it("one mind's query matches only its own rows, even with no mind filter in the SQL", async () => {
    const a = await mindWithText();
    const b = await mindWithText();
    for (const table of TABLES) {
      for (const [mind, other] of [
        [a.mind, b.mind] as const,
        [b.mind, a.mind] as const,
      ]) {
        const matched = await mindsMatched(table, toMatchExpression(mind, "capybara deployments")!);
        expect(matched.length, table.fts).toBeGreaterThan(0);
        expect(new Set(matched), table.fts).toEqual(new Set([mind]));
        expect(matched, table.fts).not.toContain(other);
      }
      // A bare stem, as a query without the token would be, matches nobody's rows.
      expect(await mindsMatched(table, '"capybara" OR "deploy"'), table.fts).toEqual([]);
    }
    // And through the API, each mind finds its own memory only.
    for (const auth of [a, b]) {
      const res = await call("GET", "/memory/search?q=capybara", auth);
      expect(res.json.results.map((m: { key: string }) => m.key)).toEqual(["capybara_deploys"]);
    }
  });

  it("two minds never share a search token", async () => {
    const t = await newTenant();
    const token = mindSearchToken(t.mind.id);
    const twin = `mind_x${t.mind.id.slice(-12)}`;
    expect(mindSearchToken(twin)).toBe(token);
    const now = new Date().toISOString();
    const insert = env.DB.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?, ?, 'twin', ?, ?)");
    await expect(insert.bind(twin, t.accountId, now, now).run()).rejects.toThrow(/UNIQUE/);
    expect(await env.DB.prepare("select count(*) as n from minds where id = ?").bind(twin).first("n")).toBe(0);
  });
});

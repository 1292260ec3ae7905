import { env } from "cloudflare:workers";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { call, newKey, newTenant, store } from "../helpers";

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
  const results = await Promise.all(tables.map((q) => env.DB.prepare(q).all()));
  return JSON.stringify(results.map((r) => r.results));
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
    for (const attacker of attackers) {
      for (const route of victimRoutes(victim)) {
        // Routes without an object id are answered from the caller's own mind when no mind is named.
        const ownData = !attacker.mind && attacker.name === "another mind's key" && !route.path.includes(victim.mindId) && !route.path.includes(victim.memoryId);
        const res = await call(route.method, route.path, { token: attacker.token, mind: attacker.mind, body: route.body });
        expect(res.text, `${attacker.name} ${route.method} ${route.path}`).not.toContain(SECRET_CONTENT);
        if (ownData) continue;
        expect(attacker.expect, `${attacker.name} ${route.method} ${route.path} → ${res.status} ${res.text}`).toContain(res.status);
      }
    }
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

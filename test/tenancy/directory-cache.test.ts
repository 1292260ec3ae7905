import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { withOAuth } from "../../src/auth/oauth";
import { deleteMind } from "../../src/portability/erase";
import { DIRECTORY_TTL_MS, knownMinds } from "../../src/tenancy/directory-cache";
import { authenticateMindKey } from "../../src/tenancy/keys";
import { resolveMindContext } from "../../src/tenancy/mind-context";
import { call, newKey, newMind, newTenant, unique } from "../helpers";
import { manualClock, testDeps } from "../support/deps";
import { type FaultPlan, faultyD1 } from "../support/faulty-d1";
import { recordingD1 } from "../support/recording-d1";
import { dataOf } from "../support/shards";

// The directory's tables: a statement naming one of them is a round trip to the directory, but
// for a write's quota guard, which reads the quotas from the mind's row on its own database.
const DIRECTORY_TABLE = /\b"?(mind_keys|minds|accounts|oauth_grants)"?\b/;
const namesDirectory = (sql: string) => DIRECTORY_TABLE.test(sql) && !sql.includes('"quota_guard"');

/** The Worker over a clock the test moves, counting the statements it sends the directory. */
function countingWorker(start = new Date()) {
  const clock = manualClock(start);
  const statements: string[] = [];
  const wrap = (d1: D1Database) => (d1 === env.DB ? recordingD1(d1, statements) : d1);
  const worker = withOAuth(createApp({ clock, wrap }));
  const send = async (method: string, path: string, token: string, body?: unknown, extra: Record<string, string> = {}) => {
    const headers = new Headers({ Authorization: `Bearer ${token}`, ...extra });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`https://edgemind.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, json: (await res.json().catch(() => null)) as { error?: { code: string }; total?: number } | null };
  };
  const directory = () => statements.filter(namesDirectory);
  const directoryStatements = () => directory().length;
  const directoryReads = () => directory().filter((sql) => /^\s*select/i.test(sql)).length;
  const keyUses = () => directory().filter((sql) => /^\s*update "mind_keys"/i.test(sql)).length;
  return { clock, send, directoryStatements, directoryReads, keyUses };
}

const memory = () => ({ category: "fact", key: unique("k").replace(/-/g, "_"), content: "a fact" });

describe("the directory off the hot path", () => {
  it("answers a warm request with a mind key without a single directory statement", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    // Cold: one read brings the key and its mind; the key's first use is recorded after the response.
    expect(w.directoryReads()).toBe(1);
    const cold = w.directoryStatements();
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    expect((await w.send("POST", "/memory", key, memory())).status).toBe(201);
    expect(w.directoryStatements()).toBe(cold);
  });

  it("records a key's use after the response, at most every 5 minutes", async () => {
    const t = await newTenant();
    const { id, key } = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    const lastUsed = async () => (await env.DB.prepare("select last_used_at from mind_keys where id = ?").bind(id).first<{ last_used_at: string | null }>())!.last_used_at;
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    expect(w.keyUses()).toBe(1);
    expect(await lastUsed()).toBe(w.clock.now().toISOString());
    w.clock.advance(4 * 60_000);
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    expect(w.keyUses()).toBe(1);
    w.clock.advance(2 * 60_000);
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    expect(w.keyUses()).toBe(2);
    expect(await lastUsed()).toBe(w.clock.now().toISOString());
  });

  it("answers a warm request with a person's token without a directory statement", async () => {
    const t = await newTenant();
    const w = countingWorker();
    const send = () => w.send("GET", "/memory", t.token, undefined, { "X-Mind-Id": t.mind.id });
    expect((await send()).status).toBe(200);
    // Cold: one read brings the account and the mind it names.
    expect(w.directoryReads()).toBe(1);
    const cold = w.directoryStatements();
    expect((await send()).status).toBe(200);
    expect(w.directoryStatements()).toBe(cold);
  });

  it("sends the directory at most 10 statements per 1,000 requests over 100 keys once warm", async () => {
    const t = await newTenant();
    const second = await newMind(t.token);
    const keys: string[] = [];
    for (const mind of [t.mind.id, second.id]) for (let n = 0; n < 50; n++) keys.push((await newKey(t.token, mind)).key);
    const w = countingWorker();
    for (const key of keys) expect((await w.send("GET", "/memory?limit=1", key)).status).toBe(200);
    const warm = w.directoryStatements();
    expect(warm).toBeLessThanOrEqual(2 * keys.length);
    for (let round = 0; round < 50; round++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => w.send("GET", "/memory?limit=1", keys[(round * 20 + i) % keys.length]!)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    expect(w.directoryStatements() - warm).toBeLessThanOrEqual(10);
  }, 120_000);
});

describe("headers are checked before any lookup or cache", () => {
  it("answers an X-Mind-Id that is not a mind id with 400 and no directory statement, however long, and the cache does not grow", async () => {
    const t = await newTenant();
    const w = countingWorker();
    const [entries, bytes] = [knownMinds.size, knownMinds.bytes];
    const values = ["mind_missing", `mind_${"0".repeat(25)}`, `mind_${"A".repeat(26)}`, " ", ...Array.from({ length: 20 }, (_, n) => `mind_${n}${"x".repeat(60 * 1024)}`)];
    for (const value of values) {
      const res = await w.send("GET", "/memory", t.token, undefined, { "X-Mind-Id": value });
      if (value.trim() === "") continue;
      expect(res.status, value.slice(0, 40)).toBe(400);
      expect(res.json?.error?.code).toBe("invalid_request");
    }
    expect(w.directoryStatements()).toBe(0);
    expect([knownMinds.size, knownMinds.bytes]).toEqual([entries, bytes]);
    // A well-formed id of no mind is looked up once, and answered as missing.
    const absent = await w.send("GET", "/memory", t.token, undefined, { "X-Mind-Id": `mind_${"0".repeat(26)}` });
    expect(absent.status).toBe(404);
  });

  it("refuses a bearer token shaped like no mind key without asking the directory", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    for (const token of [`${key}x`, `${key.split(".")[0]}.${"z".repeat(60 * 1024)}`, "emk_short.key"]) expect((await w.send("GET", "/memory", token)).status).toBe(401);
    expect(w.directoryStatements()).toBe(0);
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
  });
});

describe("the directory cache's bound", () => {
  it("refuses a revoked key at once where it was revoked, and everywhere else within the bound", async () => {
    const t = await newTenant();
    const here = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    expect((await w.send("GET", "/memory", here.key)).status).toBe(200);
    expect((await w.send("DELETE", `/minds/${t.mind.id}/keys/${here.id}`, t.token)).status).toBe(204);
    expect((await w.send("GET", "/memory", here.key)).status).toBe(401);

    // Revoked by another isolate: this one trusts what it knew until the bound passes.
    const elsewhere = await newKey(t.token, t.mind.id);
    expect((await w.send("GET", "/memory", elsewhere.key)).status).toBe(200);
    await env.DB.prepare("update mind_keys set revoked_at = ? where id = ?").bind(new Date().toISOString(), elsewhere.id).run();
    w.clock.advance(DIRECTORY_TTL_MS - 1);
    expect((await w.send("GET", "/memory", elsewhere.key)).status).toBe(200);
    w.clock.advance(1);
    expect((await w.send("GET", "/memory", elsewhere.key)).status).toBe(401);
  });

  it("answers an erased mind as missing at once where it was erased, and everywhere else within the bound", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    expect((await w.send("GET", "/memory", key)).status).toBe(200);
    expect((await w.send("DELETE", `/minds/${t.mind.id}`, t.token)).status).toBeLessThan(300);
    expect((await w.send("GET", "/memory", key)).status).toBeGreaterThanOrEqual(401);

    const other = await newMind(t.token);
    const second = await newKey(t.token, other.id);
    expect((await w.send("GET", "/memory", second.key)).status).toBe(200);
    await env.DB.prepare("update minds set erasing_since = ? where id = ?").bind(new Date().toISOString(), other.id).run();
    expect((await w.send("GET", "/memory", second.key)).status).toBe(200);
    w.clock.advance(DIRECTORY_TTL_MS);
    const gone = await w.send("GET", "/memory", second.key);
    expect(gone.status).toBe(404);
    expect(gone.json?.error?.code).toBe("not_found");
  });

  it("forgets what a change touched even when the change's answer was lost: an erasure marked behind a lost answer is seen at once", async () => {
    // Each D1 call of the erasure's first steps, done by D1 with its answer lost: once the mind is
    // marked, this isolate answers it as missing at once, whatever the request that marked it saw.
    for (let failAt = 1; failAt <= 4; failAt++) {
      const t = await newTenant();
      const { key } = await newKey(t.token, t.mind.id);
      expect((await call("GET", "/memory", { token: key })).status).toBe(200);
      const plan: FaultPlan = { failAt, mode: "after", calls: 0 };
      await deleteMind(testDeps({ wrap: (d1) => faultyD1(d1, plan) }), t.accountId, t.mind.id).catch(() => undefined);
      const marked = (await env.DB.prepare("select erasing_since from minds where id = ?").bind(t.mind.id).first<{ erasing_since: string | null }>())?.erasing_since;
      if (marked) expect((await call("GET", "/memory", { token: key })).status, `fault after call ${failAt}`).toBe(404);
    }
  });

  it("applies a changed setting at once where it was changed, and everywhere else within the bound", async () => {
    const t = await newTenant();
    const clock = manualClock(new Date());
    const deps = testDeps({ clock });
    const principal = (await authenticateMindKey(deps, (await newKey(t.token, t.mind.id)).key))!;
    const settingsNow = async () => (await resolveMindContext(deps, principal)).mind.settings.history_cap;
    expect(await settingsNow()).toBe(200);
    expect((await call("PATCH", `/minds/${t.mind.id}`, { token: t.token, body: { settings: { history_cap: 300 } } })).status).toBe(200);
    // The PATCH ran in this isolate: its entry is gone already.
    expect(await settingsNow()).toBe(300);

    await env.DB.prepare("update minds set settings = json_set(settings, '$.history_cap', 400) where id = ?").bind(t.mind.id).run();
    expect(await settingsNow()).toBe(300);
    clock.advance(DIRECTORY_TTL_MS);
    expect(await settingsNow()).toBe(400);
  });

  it("sends a mind that moved to its new shard within the bound; a write on a stale entry is refused by the old shard, 503", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const w = countingWorker();
    expect((await w.send("POST", "/memory", key, memory())).status).toBe(201);
    const { shard } = (await env.DB.prepare("select shard from minds where id = ?").bind(t.mind.id).first<{ shard: string }>())!;
    const old = await dataOf(t.mind.id);
    const held = async () => (await old.prepare("select count(*) as n from memories where mind_id = ?").bind(t.mind.id).first<{ n: number }>())!.n;
    try {
      // Another isolate's move closed the old copy and switched the directory to the other shard.
      await old.prepare("update minds set writes = 'moving' where id = ?").bind(t.mind.id).run();
      await env.DB.prepare("update minds set shard = ? where id = ?").bind(shard === "DB" ? "SHARD_1" : "DB", t.mind.id).run();
      // This isolate's entry still names the old shard: it reads the old copy, and a write there is refused.
      expect((await w.send("GET", "/memory", key)).json?.total).toBe(1);
      const refused = await w.send("POST", "/memory", key, memory());
      expect(refused.status).toBe(503);
      expect(refused.json?.error?.code).toBe("mind_moving");
      expect(await held()).toBe(1);
      // Past the bound the directory is asked again: the new shard (empty here, nothing was copied).
      w.clock.advance(DIRECTORY_TTL_MS);
      expect((await w.send("GET", "/memory", key)).json?.total).toBe(0);
    } finally {
      await env.DB.prepare("update minds set shard = ? where id = ?").bind(shard, t.mind.id).run();
      await old.prepare("update minds set writes = 'open' where id = ?").bind(t.mind.id).run();
    }
  });
});

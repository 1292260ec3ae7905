import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { withOAuth } from "../../src/auth/oauth";
import { call, newKey, newTenant, store } from "../helpers";

const HEADER = "X-Edgemind-Bookmark";
const D1_BOOKMARK = "[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}";
const SEAL = "[A-Za-z0-9_-]{22}";

type Auth = { token: string; mind: string };

async function tenant(): Promise<Auth> {
  const t = await newTenant();
  return { token: t.token, mind: t.mind.id };
}

async function shardOf(mindId: string): Promise<string> {
  return (await env.DB.prepare("select shard from minds where id = ?").bind(mindId).first<string>("shard"))!;
}

/** The D1 part of a bookmark the service handed back; D1 bookmarks of one database sort by age. */
const position = (token: string | null) => token!.split(":")[2]!;

describe("bookmarks: a client reads its own writes", () => {
  it("a write hands back a bookmark naming the mind and its database, and a read from it sees the write", async () => {
    const auth = await tenant();
    const res = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "tea", content: "Drinks tea without sugar" } });
    expect(res.status).toBe(201);
    const bookmark = res.headers.get(HEADER);
    expect(bookmark).toMatch(new RegExp(`^${auth.mind}:${await shardOf(auth.mind)}:${D1_BOOKMARK}:${SEAL}$`));

    const read = await call("GET", `/memory/${res.json.id}`, { ...auth, headers: { [HEADER]: bookmark! } });
    expect(read.status).toBe(200);
    expect(read.json.content).toBe("Drinks tea without sugar");
    const search = await call("GET", "/memory/search?q=tea", { ...auth, headers: { [HEADER]: bookmark! } });
    expect(search.json.results.map((hit: { id: string }) => hit.id)).toContain(res.json.id);
    expect(position(read.headers.get(HEADER)) >= position(bookmark)).toBe(true);
  });

  it("the bookmark advances with every write, and a read goes through a session that reports it", async () => {
    const auth = await tenant();
    const first = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "a", content: "first" } });
    const second = await call("POST", "/notes", { ...auth, body: { text: "second" } });
    expect(second.status).toBe(201);
    expect(position(second.headers.get(HEADER)) > position(first.headers.get(HEADER))).toBe(true);

    // Local D1 has no replicas: the session is served by the primary, so it reports the newest position.
    const read = await call("GET", "/notes", { ...auth, headers: { [HEADER]: first.headers.get(HEADER)! } });
    expect(read.status).toBe(200);
    expect(read.json.notes.map((n: { text: string }) => n.text)).toContain("second");
    expect(position(read.headers.get(HEADER)) >= position(second.headers.get(HEADER))).toBe(true);

    // Only a D1 session knows a bookmark: a read sent without one still gets one back.
    const fresh = await call("GET", "/memory", auth);
    expect(fresh.headers.get(HEADER)).toMatch(new RegExp(`^${auth.mind}:`));
  });

  it("a key's reads carry the bookmark too, and a blank header counts as none", async () => {
    const auth = await tenant();
    const { key } = await newKey(auth.token, auth.mind);
    const written = await store({ token: key }, { key: "k", content: "from the agent" });
    const read = await call("GET", `/memory/${written.id}`, { token: key, headers: { [HEADER]: "  " } });
    expect(read.status).toBe(200);
    expect(read.headers.get(HEADER)).toMatch(new RegExp(`^${auth.mind}:`));
  });

  it("a bookmark of another mind or another database starts the read at the primary", async () => {
    // Placement fills the emptier database: a few minds land on both.
    const a = await tenant();
    let b = await tenant();
    for (let i = 0; i < 4 && (await shardOf(b.mind)) === (await shardOf(a.mind)); i++) b = await tenant();
    expect(await shardOf(b.mind)).not.toBe(await shardOf(a.mind));
    const written = await call("POST", "/memory", { ...b, body: { category: "fact", key: "x", content: "on b" } });
    const foreign = (await call("POST", "/memory", { ...a, body: { category: "fact", key: "x", content: "on a" } })).headers.get(HEADER)!;

    const read = await call("GET", `/memory/${written.json.id}`, { ...b, headers: { [HEADER]: foreign } });
    expect(read.status).toBe(200);
    expect(read.json.content).toBe("on b");
    expect(read.headers.get(HEADER)).toMatch(new RegExp(`^${b.mind}:${await shardOf(b.mind)}:`));
  });

  it("a failed write hands back no bookmark", async () => {
    const auth = await tenant();
    const res = await call("POST", "/memory", { ...auth, body: { category: "no-such-category", key: "k", content: "x" } });
    expect(res.status).toBe(400);
    expect(res.headers.get(HEADER)).toBeNull();
  });
});

describe("bookmarks: malformed ones are refused", () => {
  const d1 = "00000000-00000012-00000000-0000000000000000000000000000abcd";
  const malformed = [
    "garbage",
    d1,
    "first-primary",
    `mind_abc:SHARD_1:zzzzzzzz-00000012-00000000-00000000000000000000000000000000`,
    `mind_abc:PRIMARY:${d1}`,
    `mind_abc:DB:${d1.toUpperCase()}`,
    `mind_abc:DB:${d1}:extra`,
    `mind_${"a".repeat(200)}:DB:${d1}`,
  ];

  it("a read with a malformed bookmark answers 400 naming the bookmark", async () => {
    const auth = await tenant();
    for (const value of malformed) {
      const res = await call("GET", "/memory", { ...auth, headers: { [HEADER]: value } });
      expect(res.status, value).toBe(400);
      expect(res.json.error.code).toBe("invalid_request");
      expect(res.json.error.message).toMatch(/^bookmark: /);
    }
  });

  it("a write with a malformed bookmark answers 400 and writes nothing", async () => {
    const auth = await tenant();
    const res = await call("POST", "/memory", { ...auth, headers: { [HEADER]: "garbage" }, body: { category: "fact", key: "k", content: "x" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^bookmark: /);
    expect((await call("GET", "/memory", auth)).json.memories).toEqual([]);
  });
});

/**
 * The Worker over databases whose sessions note where they start; with `refuse`, a session started
 * at a bookmark fails every statement, as D1 would refuse a bookmark it cannot serve.
 */
function sessionsWorker(refuse: (start: string) => boolean = () => false) {
  const starts: string[] = [];
  const wrap = (d1: D1Database) =>
    new Proxy(d1, {
      get(target, prop) {
        if (prop === "withSession") {
          return (start?: string) => {
            starts.push(start ?? "first-unconstrained");
            if (!start || !refuse(start)) return target.withSession(start);
            const refused = () => Promise.reject(new Error("D1_ERROR: the bookmark is ahead of this database"));
            const statement = { bind: () => statement, all: refused, run: refused, first: refused, raw: refused };
            return { prepare: () => statement, batch: refused, getBookmark: () => start };
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  const worker = withOAuth(createApp({ wrap }));
  const get = async (path: string, auth: Auth, bookmark?: string) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${auth.token}`, "X-Mind-Id": auth.mind, ...(bookmark ? { [HEADER]: bookmark } : {}) };
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`https://edgemind.test${path}`, { headers }), env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, text: await res.text(), bookmark: res.headers.get(HEADER) };
  };
  return { starts, get };
}

describe("bookmarks: only those D1 gave are used, kept or handed back", () => {
  it("a bookmark the client made up, unsealed or sealed by no one, for its own mind and far in the future, is ignored", async () => {
    const auth = await tenant();
    const written = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "k", content: "x" } });
    const real = written.headers.get(HEADER)!;
    const [mind, shard, , seal] = real.split(":");
    const future = "ffffffff-ffffffff-ffffffff-ffffffffffffffffffffffffffffffff";
    const w = sessionsWorker();
    for (const forged of [`${mind}:${shard}:${future}`, `${mind}:${shard}:${future}:${seal}`, `${mind}:${shard}:${future}:${"A".repeat(22)}`]) {
      w.starts.length = 0;
      const read = await w.get("/memory", auth, forged);
      expect(read.status, forged).toBe(200);
      expect(w.starts, forged).not.toContain(future);
      expect(position(read.bookmark), forged).not.toBe(future);
      // Nor kept: the next read without a header starts where D1 last left this caller.
      w.starts.length = 0;
      await w.get("/memory", auth);
      expect(w.starts).not.toContain(future);
    }
  });

  it("a bookmark D1 refuses: the read goes on from the primary, answered 200, and the refused one is neither kept nor handed back", async () => {
    // A sealed bookmark D1 gave may still be refused, by a database restored to an earlier point say.
    const auth = await tenant();
    const written = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "k", content: "kept" } });
    const sent = written.headers.get(HEADER)!;
    // The database moves on past it (another caller's write): the fresh session's position is a newer one.
    const { key } = await newKey(auth.token, auth.mind);
    await call("POST", "/notes", { token: key, body: { text: "later" } });
    const w = sessionsWorker((start) => start === position(sent));
    const read = await w.get("/memory", auth, sent);
    expect(read.status, read.text).toBe(200);
    expect(JSON.parse(read.text).memories.map((m: { content: string }) => m.content)).toEqual(["kept"]);
    expect(w.starts.slice(-2)).toEqual([position(sent), "first-primary"]);
    expect(read.bookmark).toMatch(new RegExp(`^${auth.mind}:`));
    expect(position(read.bookmark)).not.toBe(position(sent));
    w.starts.length = 0;
    const again = await w.get("/memory", auth);
    expect(again.status).toBe(200);
    expect(w.starts).not.toContain(position(sent));
  });
});

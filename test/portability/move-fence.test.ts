import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { minds } from "../../src/db/schema";
import { isMindMoving } from "../../src/errors";
import { deleteMemory, updateMemory } from "../../src/memory/memories";
import { deleteNote, verifyNote } from "../../src/notes/notes";
import { advanceMove, isMoveRunning, startMove } from "../../src/portability/move/move";
import { DIRECTORY_TTL_MS, knownMinds, rememberMind } from "../../src/tenancy/directory-cache";
import { newKey, newTenant, store } from "../helpers";
import { inMind, manualClock, testDeps } from "../support/deps";

// After a move switches the directory, another isolate may still hold the mind's entry naming
// the old shard for DIRECTORY_TTL_MS. Whatever it sends there must be refused (a retryable 503),
// never acknowledged on a copy that is about to be erased.

const database = (name: string) => (env as unknown as Record<string, D1Database>)[name]!;
const other = (name: string) => (name === "DB" ? "SHARD_1" : "DB");

/** The Worker over a clock the test moves (its directory cache reads the same clock). */
function workerAt(clock: ReturnType<typeof manualClock>) {
  const worker = createApp({ clock });
  return async (method: string, path: string, token: string, body?: unknown) => {
    const headers = new Headers({ Authorization: `Bearer ${token}` });
    if (body !== undefined) headers.set("Content-Type", "application/json");
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`https://edgemind.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), env, ctx);
    await waitOnExecutionContext(ctx);
    return { status: res.status, json: (await res.json().catch(() => null)) as { id?: string; error?: { code: string } } | null };
  };
}

/** The mind's memories, their history and its notes on one database, as they stand. */
async function copyOn(shard: string, mindId: string) {
  const db = database(shard);
  const memories = await db.prepare("select id, content, updated_at from memories where mind_id = ? order by id").bind(mindId).all();
  const history = await db.prepare("select count(*) as n from memory_history where mind_id = ?").bind(mindId).first<{ n: number }>();
  const notes = await db.prepare("select id, source, confidence from notes where mind_id = ? order by id").bind(mindId).all();
  return { memories: memories.results, history: history!.n, notes: notes.results };
}

const writesOn = async (shard: string, mindId: string) =>
  (await database(shard).prepare("select writes from minds where id = ?").bind(mindId).first<{ writes: string }>())?.writes ?? null;

describe("a stale directory entry after a move's switch", () => {
  it("an update and a delete sent to the old copy are refused 503 mind_moving and change neither copy until the bound has passed; the move then erases the old copy (both ways)", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const auth = { token: t.token, mind: t.mind.id };
    const tea = await store(auth, { key: "tea", content: "Likes tea" });
    const coffee = await store(auth, { key: "coffee", content: "Likes coffee" });
    const clock = manualClock(new Date());
    const deps = testDeps({ clock });
    const send = workerAt(clock);
    // A note's verification and deletion write nothing else: the fence alone stands between them and the old copy.
    const [kept, dropped] = [(await send("POST", "/notes", key, { text: "Prefers tea" })).json!.id!, (await send("POST", "/notes", key, { text: "Uses pnpm" })).json!.id!];

    const home = (await deps.directory.select().from(minds).where(eq(minds.id, t.mind.id)).get())!.shard;
    for (const to of [other(home), home]) {
      const from = other(to);
      // What another isolate read before the move: a request context, the key and the mind's entry.
      const stale = (await deps.directory.select().from(minds).where(eq(minds.id, t.mind.id)).get())!;
      expect(stale.shard).toBe(from);
      const inFlight = await inMind(deps, { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId } });
      expect((await send("GET", "/memory", key)).status).toBe(200);
      await startMove(deps, t.mind.id, to);
      while ((await advanceMove(deps, t.mind.id)) !== "switched");
      rememberMind(deps, t.mind.id, stale);
      expect(knownMinds.get(t.mind.id, clock.now().getTime())?.mind.shard).toBe(from);
      const [oldCopy, newCopy] = [await copyOn(from, t.mind.id), await copyOn(to, t.mind.id)];
      expect(newCopy).toEqual(oldCopy);

      const refusedEverywhere = async () => {
        const update = await send("PUT", `/memory/${tea.id}`, key, { content: "Likes green tea" });
        const remove = await send("DELETE", `/memory/${coffee.id}`, key);
        const removeNote = await send("DELETE", `/notes/${dropped}`, key);
        for (const refused of [update, remove, removeNote]) expect([refused.status, refused.json?.error?.code]).toEqual([503, "mind_moving"]);
        await expect(updateMemory(inFlight, tea.id, { content: "Likes black tea" })).rejects.toSatisfy(isMindMoving);
        await expect(deleteMemory(inFlight, coffee.id)).rejects.toSatisfy(isMindMoving);
        await expect(verifyNote(inFlight, kept)).rejects.toSatisfy(isMindMoving);
        await expect(deleteNote(inFlight, dropped)).rejects.toSatisfy(isMindMoving);
        expect(await copyOn(from, t.mind.id)).toEqual(oldCopy);
        expect(await copyOn(to, t.mind.id)).toEqual(newCopy);
        expect(await writesOn(from, t.mind.id)).toBe("moving");
      };
      await refusedEverywhere();
      // However often the move is asked to go on, the old copy stays closed for the whole bound.
      for (let i = 0; i < 3; i++) expect(await advanceMove(deps, t.mind.id)).toBe("switched");
      clock.advance(DIRECTORY_TTL_MS - 1);
      expect(await advanceMove(deps, t.mind.id)).toBe("switched");
      await refusedEverywhere();

      // Past the bound no isolate trusts the old entry: the old copy is erased and the move ends.
      clock.advance(1);
      let state = await advanceMove(deps, t.mind.id);
      expect(state).toBe("erasing");
      while (isMoveRunning(state)) state = await advanceMove(deps, t.mind.id);
      expect(state).toBe("done");
      expect((await copyOn(from, t.mind.id)).memories).toEqual([]);
      expect(await copyOn(to, t.mind.id)).toEqual(newCopy);
      // A request that reads the directory again writes where the mind now lives.
      expect((await send("GET", `/memory/${tea.id}`, key)).status).toBe(200);
    }
    expect((await send("PUT", `/memory/${tea.id}`, key, { content: "Likes green tea" })).status).toBe(200);
    expect((await send("DELETE", `/memory/${coffee.id}`, key)).status).toBeLessThan(300);
    expect((await send("DELETE", `/notes/${dropped}`, key)).status).toBe(200);
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETENTION } from "../../src/db/prune";
import { acceptImport, IMPORT_RETENTION_STEP, runImport } from "../../src/portability/import/imports";
import { advanceMove, moveProgress, startMove } from "../../src/portability/move/move";
import { ADMIN_TOKEN, call, followImport, newMind, newTenant, store } from "../helpers";
import { depsOfMind, testDeps } from "../support/deps";
import { mindState } from "../support/mind-state";
import { countEverywhere, dataOf } from "../support/shards";

/** A mind holding three memories, and its archive. */
async function archiveOfThree() {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  for (const key of ["tea", "coffee", "water"]) await store(auth, { key, content: `Likes ${key}` });
  const archive = (await call("GET", `/minds/${t.mind.id}/export`, { token: t.token })).text;
  return { ...t, archive };
}

const post = (mindId: string, token: string, archive: string) =>
  call("POST", `/minds/${mindId}/import`, { token, rawBody: archive, headers: { "Content-Type": "application/x-ndjson" } });

describe("an import archiveImport", () => {
  it("is one at a time per mind, followed by its owner only", async () => {
    const source = await archiveOfThree();
    const target = (await newMind(source.token)).id;
    const archiveImport = (await acceptImport(testDeps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    expect(archiveImport).toMatchObject({ state: "queued", rows_written: 0 });
    // Stored, not yet checked nor written: a second import into the same (still empty) mind waits its turn.
    const second = await post(target, source.token, source.archive);
    expect(second.status).toBe(409);
    expect(second.json.error.message).toMatch(/already under way/);
    expect((await call("GET", `/minds/${target}/import/${archiveImport.id}`, { token: source.token })).json).toMatchObject({ id: archiveImport.id, state: "queued" });
    const stranger = await newTenant();
    expect((await call("GET", `/minds/${target}/import/${archiveImport.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `/minds/${target}/import/imp_unknown`, { token: source.token })).status).toBe(404);

    await runImport(testDeps(), target, archiveImport.id, () => true);
    const done = (await call("GET", `/minds/${target}/import/${archiveImport.id}`, { token: source.token })).json;
    expect(done).toMatchObject({ state: "done", rows_total: done.rows_written, error: null, counts: { memories: 3 } });
    expect((await mindState(target)).counts.memories).toBe(3);
    expect(await countEverywhere("select count(*) as n from import_rows where import_id = ?", archiveImport.id)).toBe(0);
    expect(await countEverywhere("select count(*) as n from import_parts where import_id = ?", archiveImport.id)).toBe(0);
  });

  it("that passes a quota while it writes is undone, and says why", async () => {
    const source = await archiveOfThree();
    const target = (await newMind(source.token)).id;
    const archiveImport = (await acceptImport(testDeps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    // Checked and staged within the quota; meanwhile the mind's owner lowers it.
    let steps = 0;
    expect(await runImport(testDeps(), target, archiveImport.id, () => steps++ < 1)).toMatchObject({ state: "queued", rows_written: 0, counts: { memories: 3 } });
    expect((await call("PATCH", `/minds/${target}`, { token: source.token, body: { settings: { max_memories: 2 } } })).status).toBe(200);
    const start = await mindState(target);
    const ended = await runImport(testDeps(), target, archiveImport.id, () => true);
    expect(ended).toMatchObject({ state: "failed", error: { code: "quota_exceeded" } });
    expect(ended!.error!.message).toMatch(/max_memories/);
    expect(await mindState(target)).toEqual(start);
    expect(await countEverywhere("select count(*) as n from import_rows where import_id = ?", archiveImport.id)).toBe(0);
  });

  it("over a megabyte answers 202 at once and is written in the background", async () => {
    const source = await newTenant();
    const at = "2026-01-01T00:00:00.000Z";
    const lines = [{ type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "big", locale: "en", retention_hours: null, settings: {} } }];
    for (let i = 0; i < 1500; i++) {
      lines.push({ type: "memory", id: `mem_${i}`, agent: "default", category: "fact", key: `fact_${i}`, content: `fact ${i} `.repeat(80), tags: [], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at } as never);
    }
    const archive = lines.map((l) => JSON.stringify(l)).join("\n");
    expect(archive.length).toBeGreaterThan(1024 * 1024);
    const answer = await post(source.mind.id, source.token, archive);
    expect(answer.status).toBe(202);
    expect(answer.json.import).toMatchObject({ state: "queued", rows_written: 0 });
    const archiveImport = await followImport(source.mind.id, source.token, answer);
    expect(archiveImport.json).toMatchObject({ state: "done", rows_total: 1501, rows_written: 1501, counts: { memories: 1500 } });
    expect((await call("GET", "/memory/search?q=fact%201499", { token: source.token, mind: source.mind.id })).json.results.length).toBeGreaterThan(0);
  }, 120_000);

  it("over its quota when the archiveImport checks it fails, says why, and writes nothing", async () => {
    const source = await archiveOfThree();
    const target = (await newMind(source.token)).id;
    const archiveImport = (await acceptImport(testDeps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    expect((await call("PATCH", `/minds/${target}`, { token: source.token, body: { settings: { max_memories: 2 } } })).status).toBe(200);
    const start = await mindState(target);
    const ended = await runImport(testDeps(), target, archiveImport.id, () => true);
    expect(ended).toMatchObject({ state: "failed", rows_total: 0, error: { code: "quota_exceeded" } });
    expect(ended!.error!.message).toMatch(/max_memories/);
    expect(await mindState(target)).toEqual(start);
    expect(await countEverywhere("select count(*) as n from import_parts where import_id = ?", archiveImport.id)).toBe(0);
  });

  it("left in staging by a request that died is removed by the daily retention, with its archive", async () => {
    const source = await archiveOfThree();
    const target = (await newMind(source.token)).id;
    const archiveImport = (await acceptImport(testDeps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    const db = await dataOf(target);
    await db.prepare("update imports set state = 'staging', updated_at = '2020-01-01T00:00:00.000Z' where id = ?").bind(archiveImport.id).run();
    expect(await countEverywhere("select count(*) as n from import_parts where import_id = ?", archiveImport.id)).toBeGreaterThan(0);
    // The mind is free for another import meanwhile.
    expect((await followImport(target, source.token, await post(target, source.token, source.archive))).json).toMatchObject({ imported: { memories: 3 } });
    const removed = await IMPORT_RETENTION_STEP.run(await depsOfMind(target), new Date(), DEFAULT_RETENTION);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await countEverywhere("select count(*) as n from imports where id = ?", archiveImport.id)).toBe(0);
    expect(await countEverywhere("select count(*) as n from import_parts where import_id = ?", archiveImport.id)).toBe(0);
  });

  it("and a move of the same mind never run together, whichever starts first", async () => {
    const source = await archiveOfThree();
    const target = (await newMind(source.token)).id;
    const shardOf = async (id: string) =>
      (await env.DB.prepare("select shard, moving_to from minds where id = ?").bind(id).first<{ shard: string; moving_to: string | null }>())!;
    const elsewhere = (shard: string) => (shard === "DB" ? "SHARD_1" : "DB");

    // An import under way: the move is refused at once.
    const archiveImport = (await acceptImport(testDeps(), source.accountId, target, [new TextEncoder().encode(source.archive)])).archiveImport;
    const home = (await shardOf(target)).shard;
    const refused = await call("POST", `/shards/${elsewhere(home)}/minds`, { token: ADMIN_TOKEN, body: { mind_id: target } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.error.message).toMatch(/import/);
    await runImport(testDeps(), target, archiveImport.id, () => true);

    // A move that was claimed before an import slipped in gives itself up before it closes the mind.
    const empty = (await newMind(source.token)).id;
    const from = (await shardOf(empty)).shard;
    await startMove(testDeps(), empty, elsewhere(from));
    const now = new Date().toISOString();
    await (await dataOf(empty))
      .prepare("insert into imports (id, mind_id, state, restore, created_at, updated_at) values (?, ?, 'queued', '{}', ?, ?)")
      .bind(`imp_race_${empty}`, empty, now, now)
      .run();
    expect(await advanceMove(testDeps(), empty)).toBe("undoing");
    while ((await advanceMove(testDeps(), empty)) === "undoing");
    expect(await moveProgress(testDeps(), empty)).toMatchObject({ state: "abandoned", error: expect.stringMatching(/import/) });
    expect(await shardOf(empty)).toEqual({ shard: from, moving_to: null });
    expect((await (await dataOf(empty)).prepare("select writes from minds where id = ?").bind(empty).first<{ writes: string }>())!.writes).toBe("open");

    // A move that closed the mind first: an import that passed the directory's check is refused when it claims the mind.
    const third = (await newMind(source.token)).id;
    await (await dataOf(third)).prepare("update minds set writes = 'moving' where id = ?").bind(third).run();
    await expect(acceptImport(testDeps(), source.accountId, third, [new TextEncoder().encode(source.archive)])).rejects.toMatchObject({ code: "mind_moving" });
    expect(await countEverywhere("select count(*) as n from imports where mind_id = ?", third)).toBe(0);
  });
});

import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { memorySearchColumns, storeMemory } from "../../src/memory/memories";
import { recallMemories } from "../../src/memory/recall";
import { searchMemories } from "../../src/memory/search";
import { readUsage } from "../../src/tenancy/quotas";
import { inMind, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";

// UPGRADE_DB must start empty: this file migrates it to 0025, writes memories as the code before
// 0027 did, then applies 0027 (when a memory was stated, and what replaced it) and the rest.
beforeAll(freshDatabases);

const db = env.UPGRADE_DB;
const TIME = "0027";
const before = env.TEST_MIGRATIONS.filter((m) => m.name < TIME);
const after = env.TEST_MIGRATIONS.filter((m) => m.name >= TIME);
const MIND = "mind_01jtimemigration0000000001";
const CREATED = "2024-02-10T08:00:00.000Z";

const rows = async (sql: string) => (await db.prepare(sql).all()).results;

/** A memory row as the code before 0027 wrote it: no time of statement, no validity. */
function oldMemory(id: string, key: string, content: string) {
  const search = memorySearchColumns(MIND, key, content, ["boat"]);
  return db
    .prepare(`insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence, expires_at,
      created_at, updated_at, search_key, search_content, search_tags, context, search_context)
      values (?, ?, 'default', 'fact', ?, ?, '["boat"]', 'normal', 'user', 1, 1.0, null, ?5, ?5, ?, ?, ?, '', '')`)
    .bind(id, MIND, key, content, CREATED, search.searchKey, search.searchContent, search.searchTags);
}

describe("migration 0027 over memories written before it", () => {
  it("reads each as stated and valid from its creation, every one current, and the product versions them from there", async () => {
    await applyD1Migrations(db, before);
    await db.batch([
      db.prepare("insert into accounts (id, name, created_at) values ('acc_time', 'sailor', ?)").bind(CREATED),
      db.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?, 'acc_time', 'sailor', ?2, ?2)").bind(MIND, CREATED),
      oldMemory("mem_boat_colour", "boat_colour", "The boat is painted blue"),
      oldMemory("mem_boat_name", "boat_name", "The boat is called Heron"),
    ]);
    expect(await rows(`select memories from mind_usage where mind_id = '${MIND}'`)).toEqual([{ memories: 2 }]);

    await applyD1Migrations(db, after);

    // Nothing was rewritten: the old rows keep null times, read as their creation.
    expect(await rows("select observed_at, valid_from, valid_until, superseded_by from memories")).toEqual([
      { observed_at: null, valid_from: null, valid_until: null, superseded_by: null },
      { observed_at: null, valid_from: null, valid_until: null, superseded_by: null },
    ]);
    expect(await rows(`select memories, replaced from mind_usage where mind_id = '${MIND}'`)).toEqual([{ memories: 2, replaced: 0 }]);
    const deps = testDeps({ d1: db });
    const mindContext = await inMind(deps, { mindId: MIND });
    const found = await searchMemories(mindContext, { q: "boat", limit: 10 });
    expect(found.map((h) => h.memory)).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: "boat_colour", observed_at: CREATED, valid_from: CREATED, valid_until: null })]),
    );
    expect(found).toHaveLength(2);
    expect(await searchMemories(mindContext, { q: "boat", limit: 10, asOf: "2024-02-09T00:00:00.000Z" })).toEqual([]);

    // A newer statement of an old memory keeps the old one as a past version, counted as replaced.
    await storeMemory(mindContext, { category: "fact", key: "boat_colour", content: "The boat is painted green" });
    expect(await rows(`select memories, replaced from mind_usage where mind_id = '${MIND}'`)).toEqual([{ memories: 3, replaced: 1 }]);
    expect((await readUsage({ shard: mindContext.shard }, MIND)).usage.memories).toBe(2);
    const then = await searchMemories(mindContext, { q: "painted", limit: 10, asOf: "2024-03-01T00:00:00.000Z" });
    expect(then.map((h) => [h.memory.content, h.memory.valid_from, h.memory.superseded_by])).toEqual([["The boat is painted blue", CREATED, "mem_boat_colour"]]);
    expect((await recallMemories(mindContext, { limit: 10 })).text).toContain("The boat is painted green");
    // The full-text index still agrees with its table, old rows and new.
    await expect(db.prepare("insert into memories_fts(memories_fts) values ('integrity-check')").run()).resolves.toBeTruthy();
  });
});

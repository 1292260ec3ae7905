import { env } from "cloudflare:workers";
import { it } from "vitest";
import { memorySearchColumns } from "../../src/memory/memories";
import { mindSearchToken, stems } from "../../src/memory/normalize";
import { searchMemories } from "../../src/memory/search";
import { createMind, ensureAccount } from "../../src/tenancy/minds";
import type { CapturedQuery } from "../lib/growth-data";
import { TENANT_FILL, TENANT_TEXT_INSERT, TENANT_TEXTS_TABLE, type TenantsInput, type TenantsResult, type TenantsStage } from "../lib/tenants-data";
import { benchDeps, inMind, mindD1, newMindScope } from "./bench-deps";
import { recordingD1 } from "./recording-d1";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as TenantsInput;
const WARM_UP = 10;
// Timed calls whose statements are sent again alone, for D1's rows_read.
const CAPTURED = 50;
// How this code indexes a mind's text: the token in front of each stem, and the columns storeMemory writes.
const tokenOf = (mindId: string) => mindSearchToken(mindId);
const searchColumnsOf = (mindId: string, key: string, content: string, tags: string[]) => memorySearchColumns(mindId, key, content, tags);

/** Loads one mind's memories (its texts start at `offset`) through the real FTS triggers. */
async function fill(d1: D1Database, mindId: string, label: string, offset: number): Promise<void> {
  await d1.prepare(TENANT_FILL)
    .bind(input.memoriesPerMind, label, mindId, tokenOf(mindId), offset, input.texts.length)
    .run();
}

/** Every generated row of the mind holds the search columns storeMemory would write for it. */
async function checkRows(d1: D1Database, mindId: string): Promise<number> {
  const { results } = await d1.prepare(
    "select key, content, tags, search_key, search_content, search_tags from memories where mind_id = ? order by random() limit 200",
  )
    .bind(mindId)
    .all<{ key: string; content: string; tags: string; search_key: string; search_content: string; search_tags: string }>();
  for (const row of results) {
    const want = searchColumnsOf(mindId, row.key, row.content, JSON.parse(row.tags) as string[]);
    const got = { searchKey: row.search_key, searchContent: row.search_content, searchTags: row.search_tags };
    const expected = { searchKey: want.searchKey, searchContent: want.searchContent, searchTags: want.searchTags };
    if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`generated row differs from storeMemory's: ${JSON.stringify({ got, expected })}`);
  }
  return results.length;
}

it("one mind's search as the database fills with other minds", async () => {
  // One database filling with minds: a deployment of one database, every mind found through
  // the same accessor the Worker uses.
  const deps = benchDeps({ oneDatabase: true });
  const target = await newMindScope("tenants-measured", deps);
  const d1 = mindD1(deps, target);
  await d1.exec(TENANT_TEXTS_TABLE);
  const text = d1.prepare(TENANT_TEXT_INSERT);
  for (let first = 0; first < input.texts.length; first += 500) {
    await d1.batch(input.texts.slice(first, first + 500).map((t, j) => text.bind(first + j, t, stems(t).join(" "))));
  }
  await fill(d1, target.mind.id, "mem_target", 0);
  let checkedRows = await checkRows(d1, target.mind.id);
  const measured = inMind(deps, target);
  const account = await ensureAccount(deps, "bench-tenants-others");

  const stages: TenantsStage[] = [];
  let minds = 1;
  let sql = "";
  for (const want of input.minds) {
    const t0 = Date.now();
    for (; minds < want; minds++) {
      const other = await createMind(deps, account.id, { name: `other-${minds}` });
      // Each mind speaks like the others but holds its own run of the texts.
      const otherD1 = deps.shards.db(other.shard).$client;
      await fill(otherD1, other.id, `mem_o${minds}`, (minds * 997) % input.texts.length);
      if (minds === 1) checkedRows += await checkRows(otherD1, other.id);
      if ((minds + 1) % 50 === 0) progress(`${minds + 1} minds loaded`);
    }
    const loadMs = Date.now() - t0;
    const search = (i: number, mindContext = measured) =>
      searchMemories(mindContext, { q: input.questions[i % input.questions.length]!, limit: 20 });
    for (let i = 0; i < WARM_UP; i++) await search(i);
    const ms: number[] = [];
    for (let i = 0; i < input.queries; i++) {
      const start = performance.now();
      await search(i);
      ms.push(performance.now() - start);
    }
    // rows_read of a search: the sum over every statement it sent.
    const rowsRead: number[] = [];
    for (let i = 0; i < CAPTURED; i++) {
      const captured: CapturedQuery[] = [];
      await search(i, inMind(benchDeps({ oneDatabase: true, wrap: (db) => recordingD1(db, captured) }), target));
      let read = 0;
      for (const q of captured) read += (await d1.prepare(q.sql).bind(...q.params).all()).meta.rows_read;
      rowsRead.push(read);
      sql = captured.map((q) => q.sql).join(";\n");
    }
    const memories = (await d1.prepare("select count(*) as n from memories").first<number>("n")) ?? 0;
    stages.push({ minds, memories, loadMs, ms, rowsRead });
    progress(`${minds} minds, ${memories} memories: search p50 ${[...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]} ms`);
  }
  report({ stages, checkedRows, sql } satisfies TenantsResult);
});

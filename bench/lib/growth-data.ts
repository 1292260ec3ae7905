import { mindSearchToken, toIndexText } from "../../src/memory/normalize";

// The memories of the growth measure: LoCoMo turns cycled with a running number, so every
// size has realistic text and the same rows can be built again in node for raw SQLite.

// Rows are generated inside SQLite by one statement per range, the same statements on D1 and
// on raw SQLite, so both hold identical data; JavaScript only hands over the base texts.

/** The base texts with their search form; ids 0…n-1. */
export const GROWTH_TEXTS_TABLE = "create table bench_texts (id integer primary key, content text not null, search_content text not null)";
export const GROWTH_TEXT_INSERT = "insert into bench_texts (id, content, search_content) values (?, ?, ?)";

/** Values for GROWTH_TEXT_INSERT: text i and its index text in (mind id), as storeMemory would write it. */
export const growthText = (mindId: string, i: number, text: string) => [i, text, toIndexText(mindId, text)];

/**
 * Memories from (first) up to (end), for (mind id), cycling over (text count) base texts:
 * content "text (#i)", key turn_i, tag batch<i % 50>, priorities and categories in turn, one
 * minute apart. The search columns are what storeMemory writes for them (numbers stem to
 * themselves; every stem behind the mind's search token).
 */
export const GROWTH_FILL = `with recursive n(i) as (select ? union all select i + 1 from n where i + 1 < ?), tok(t) as (select ?)
insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence,
  expires_at, created_at, updated_at, search_key, search_content, search_tags)
select printf('mem_bench%08d', i), ?, 'default',
  case i % 5 when 0 then 'fact' when 1 then 'preference' when 2 then 'project' when 3 then 'context' else 'note' end,
  'turn_' || i, t.content || ' (#' || i || ')', json_array('batch' || (i % 50)),
  case i % 5 when 0 then 'low' when 1 then 'normal' when 2 then 'normal' when 3 then 'high' else 'critical' end,
  'agent', 0, 0.7, null,
  strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' minutes'),
  strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' minutes'),
  tok.t || 'turn ' || tok.t || i, t.search_content || ' ' || tok.t || i, tok.t || 'batch' || (i % 50)
from n join bench_texts t on t.id = i % ? join tok`;

/** Values for GROWTH_FILL. */
export const growthFillParams = (mindId: string, first: number, end: number, textCount: number) => [first, end, mindSearchToken(mindId), mindId, textCount];

export interface GrowthInput {
  size: number;
  texts: string[];
  questions: string[];
  queries: number;
}

/** One query as D1 was sent it, to be sent again to raw SQLite. */
export interface CapturedQuery {
  sql: string;
  params: unknown[];
}

export interface GrowthResult {
  size: number;
  mindId: string;
  accountId: string;
  insertMs: number;
  /** rowsRead: per call, over its statements; statementsPerCall: how many of `captured` each call sent. */
  search: { ms: number[]; rowsRead: number[]; captured: CapturedQuery[]; statementsPerCall: number[] };
  /** searchMemories and the one-MATCH statement, timed call by call in turn. */
  searchBesideSingleMatch: { product: number[]; singleMatch: number[] };
  recall: { ms: number[]; rowsRead: number[]; captured: CapturedQuery[]; statementsPerCall: number[] };
  recallPlan: string;
  recallWithoutIndex: { ms: number[]; rowsRead: number[] };
}

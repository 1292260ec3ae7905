import { toIndexText } from "../../src/memory/normalize";

// The memories of the growth measure: LoCoMo turns cycled with a running number, so every
// size has realistic text and the same rows can be built again in node for raw SQLite.

const PRIORITIES = ["low", "normal", "normal", "high", "critical"] as const;
const CATEGORIES = ["fact", "preference", "project", "context", "note"] as const;
const BASE = Date.UTC(2026, 0, 1);

/** The column values of memory i, in the order of GROWTH_COLUMNS. */
export function growthRow(mindId: string, i: number, texts: readonly string[]): (string | number | null)[] {
  const key = `turn_${i}`;
  const content = `${texts[i % texts.length]!} (#${i})`;
  const tags = [`batch${i % 50}`];
  const at = new Date(BASE + i * 60_000).toISOString();
  return [
    `mem_bench${String(i).padStart(8, "0")}`,
    mindId,
    "default",
    CATEGORIES[i % CATEGORIES.length]!,
    key,
    content,
    JSON.stringify(tags),
    PRIORITIES[i % PRIORITIES.length]!,
    "agent",
    0,
    0.7,
    null,
    at,
    at,
    toIndexText(key.replaceAll("_", " ")),
    toIndexText(content),
    toIndexText(tags.join(" ")),
  ];
}

export const GROWTH_COLUMNS = [
  "id", "mind_id", "agent", "category", "key", "content", "tags", "priority", "source", "verified", "confidence",
  "expires_at", "created_at", "updated_at", "search_key", "search_content", "search_tags",
];

export const GROWTH_INSERT = `insert into memories (${GROWTH_COLUMNS.join(", ")}) values (${GROWTH_COLUMNS.map(() => "?").join(", ")})`;

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
  search: { ms: number[]; rowsRead: number[]; captured: CapturedQuery[] };
  recall: { ms: number[]; rowsRead: number[]; captured: CapturedQuery[] };
  recallWithoutIndex: { ms: number[]; rowsRead: number[] };
}

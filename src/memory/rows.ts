import { getTableColumns } from "drizzle-orm";
import type { z } from "zod";
import { type MemoryRow, memories } from "../db/schema";
import { MAX_CONTEXT_CHARS, memoryInput, memoryRecord } from "./fields";

export {
  CATEGORIES,
  type Category,
  MAX_CONTEXT_CHARS,
  MEMORY_CONTENT_MAX,
  PRIORITIES,
  SOURCES,
  type Source,
  TAG_MAX,
} from "./fields";

/** The context as stored: trimmed and cut to MAX_CONTEXT_CHARS. */
export function boundContext(text: string | undefined | null): string {
  const trimmed = (text ?? "").trim();
  if (trimmed.length <= MAX_CONTEXT_CHARS) return trimmed;
  const cut = trimmed.slice(0, MAX_CONTEXT_CHARS);
  const space = cut.lastIndexOf(" ");
  return (space > MAX_CONTEXT_CHARS * 0.8 ? cut.slice(0, space) : cut).trimEnd();
}

/** A memory as every front shows it (Synapse's field names); its one shape is fields.ts' memoryRecord. */
export type Memory = z.output<typeof memoryRecord>;

// A memory's fields are named as its columns are in SQL (mind_id, expires_at …); drizzle's
// row names them in camelCase. Rows and memories are mapped through the table's own column
// names, so a new field needs its column and its place in the shape (fields.ts), nothing here.

type Field = keyof Memory & string;
type Column = keyof MemoryRow;

const propertyOf = new Map(Object.entries(getTableColumns(memories)).map(([property, column]) => [column.name, property as Column]));

/** Each field a memory shows, with the row property that holds it. */
const FIELD_COLUMNS: [Field, Column][] = Object.keys(memoryRecord.shape)
  .filter((field) => field !== "context")
  .map((field) => {
    const property = propertyOf.get(field);
    if (property === undefined) throw new Error(`the memory field ${field} has no column in the memories table`);
    return [field as Field, property];
  });

// A replaced statement stays a row of memories, and the table's UNIQUE (mind_id, agent,
// category, key) stays as created (migrations/0026): the row's stored key is its key, '#' and
// its own id. No key a writer may give holds '#' (MEMORY_KEY_PATTERN), so the current row
// alone holds the key itself, and every read by key finds only it.

/** What a replaced row's stored key adds to its key. */
export const REPLACED_KEY_MARK = "#";

/** The key as stored: a replaced row's carries its id. */
export const storedKey = (key: string, id: string, replaced: boolean) => (replaced ? `${key}${REPLACED_KEY_MARK}${id}` : key);

/** The key a stored key shows. */
export const shownKey = (stored: string) => {
  const mark = stored.indexOf(REPLACED_KEY_MARK);
  return mark < 0 ? stored : stored.slice(0, mark);
};

export function toMemory(row: MemoryRow): Memory {
  const fields = Object.fromEntries(FIELD_COLUMNS.map(([field, property]) => [field, row[property]])) as Memory;
  // Rows written before statements had times read as created (migrations/0026).
  const observed = row.observedAt ?? row.createdAt;
  return { ...fields, key: shownKey(row.key), observed_at: observed, valid_from: row.validFrom ?? observed };
}

/** The memory with its context beside it when `withContext` (asked for with include=context). */
export const toMemoryWithContext = (row: MemoryRow, withContext: boolean | undefined): Memory =>
  withContext ? { ...toMemory(row), context: row.context } : toMemory(row);

/** A memory's stored columns from its shape (an archive line, say), without the search index copies. */
export function toMemoryColumns(memory: Omit<Memory, "context">): Omit<MemoryRow, "context" | `search${string}`> {
  const columns = Object.fromEntries(FIELD_COLUMNS.map(([field, property]) => [property, memory[field as keyof typeof memory]])) as Omit<
    MemoryRow,
    "context" | `search${string}`
  >;
  return { ...columns, key: storedKey(memory.key, memory.id, memory.superseded_by !== null) };
}

/**
 * Fields a write gives that are not stored as given: content, tags and context have index
 * copies and are written by the store itself, confidence goes with provenance, when it was
 * stated goes with its validity, and a memory's category and key name it.
 */
const WRITTEN_BY_THE_STORE = new Set(["category", "key", "content", "tags", "context", "confidence", "observed_at"]);

/** The columns of the fields a write gave that are stored as given (a store or a change): the ones it left out keep their value. */
export function givenColumns(given: Partial<Omit<Memory, "context">>): Partial<MemoryRow> {
  return Object.fromEntries(
    FIELD_COLUMNS
      .filter(([field]) => field in memoryInput.shape && !WRITTEN_BY_THE_STORE.has(field) && given[field as keyof typeof given] !== undefined)
      .map(([field, property]) => [property, given[field as keyof typeof given]]),
  );
}

const TITLE_CHARS = 60;

/** What a person reads as a memory's title: the start of its content, cut at a word. */
export function memoryTitle(memory: { content: string }, max = TITLE_CHARS): string {
  const line = memory.content.replace(/\s+/g, " ").trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:–—-]+$/u, "")}…`;
}

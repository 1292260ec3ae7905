import type { z } from "zod";
import type { MemoryRow } from "../db/schema";
import type { memoryRecord } from "./fields";

export const CATEGORIES = ["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"] as const;
export type Category = (typeof CATEGORIES)[number];

/** Lowest first, so an index is also a rank. */
export const PRIORITIES = ["low", "normal", "high", "critical"] as const;
export type Priority = (typeof PRIORITIES)[number];

/** Longest context a memory or a note keeps (characters); longer text is cut at a word. */
export const MAX_CONTEXT_CHARS = 4000;

/** The context as stored: trimmed and cut to MAX_CONTEXT_CHARS. */
export function boundContext(text: string | undefined | null): string {
  const trimmed = (text ?? "").trim();
  if (trimmed.length <= MAX_CONTEXT_CHARS) return trimmed;
  const cut = trimmed.slice(0, MAX_CONTEXT_CHARS);
  const space = cut.lastIndexOf(" ");
  return (space > MAX_CONTEXT_CHARS * 0.8 ? cut.slice(0, space) : cut).trimEnd();
}

export const SOURCES = ["user", "agent"] as const;

/** A memory's stable key: snake_case, at most MEMORY_KEY_MAX characters. */
export const MEMORY_KEY_PATTERN = /^[a-z0-9]+(_[a-z0-9]+)*$/;
export const MEMORY_KEY_MAX = 100;
export const MEMORY_CONTENT_MAX = 8000;
export const TAG_MAX = 40;
export const TAGS_MAX = 10;
export type Source = (typeof SOURCES)[number];

/** A memory as every front shows it (Synapse's field names); its one shape is fields.ts' memoryRecord. */
export type Memory = z.output<typeof memoryRecord>;

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    mind_id: row.mindId,
    agent: row.agent,
    category: row.category as Category,
    key: row.key,
    content: row.content,
    tags: row.tags,
    priority: row.priority as Priority,
    source: row.source as Source,
    verified: row.verified,
    confidence: row.confidence,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** The memory with its context beside it when `withContext` (asked for with include=context). */
export const toMemoryWithContext = (row: MemoryRow, withContext: boolean | undefined): Memory =>
  withContext ? { ...toMemory(row), context: row.context } : toMemory(row);
/** A memory's stored columns from its shape (an archive line, say), without the search index copies. */
export function toMemoryColumns(memory: Omit<Memory, "context">) {
  return {
    id: memory.id,
    mindId: memory.mind_id,
    agent: memory.agent,
    category: memory.category,
    key: memory.key,
    content: memory.content,
    tags: memory.tags,
    priority: memory.priority,
    source: memory.source,
    verified: memory.verified,
    confidence: memory.confidence,
    expiresAt: memory.expires_at,
    createdAt: memory.created_at,
    updatedAt: memory.updated_at,
  } satisfies Omit<MemoryRow, "context" | `search${string}`>;
}

/**
 * The columns of the fields a write gave that are stored as given (a store or a change): the
 * ones it left out keep their value. Content, tags and context have index copies and are
 * written by the store itself; confidence goes with provenance.
 */
export function givenColumns(given: Partial<Pick<Memory, "priority" | "expires_at">>) {
  return {
    ...(given.priority !== undefined && { priority: given.priority }),
    ...(given.expires_at !== undefined && { expiresAt: given.expires_at }),
  } satisfies Partial<MemoryRow>;
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

import type { MemoryRow } from "../db/schema";

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
export type Source = (typeof SOURCES)[number];

/** A memory as every front shows it (Synapse's field names). */
export interface Memory {
  id: string;
  mind_id: string;
  agent: string;
  category: Category;
  key: string;
  content: string;
  tags: string[];
  priority: Priority;
  source: Source;
  verified: boolean;
  confidence: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  /** Where it came from; only when asked for (`include=context`), never as its content. */
  context?: string;
}

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

// What a model reads of edgemind's answers, which it pays for in tokens: only what it can use.
// One definition for the Worker's MCP tools (src/mcp/tools), the AI SDK tools of this package and
// the Python client's tools (generated from MEMORY_FOR_MODELS), so an agent gets the same answer
// from each. REST answers stay whole.

import { z } from "zod";
import { MEMORY_FIELDS } from "./generated/memory-shape.js";

/** How one field of a memory reaches a model. */
export interface FieldForModels {
  /** The name it is shown under (default: its own). */
  to?: string;
  /** `date`: to the minute in UTC (`2026-12-06T10:11Z`); `score`: three significant digits. */
  as?: "date" | "score";
  /** Values that say nothing, so the field is left out (null and absent always are). */
  leftOutWhen?: readonly unknown[];
  /** Another field of the memory: left out when it holds the same value (it would say nothing new). */
  leftOutWhenSameAs?: string;
  /** Its type as the output schema declares it. */
  schema: z.ZodType;
}

const date = z.string().describe("UTC, to the minute: 2026-12-06T10:11Z");

/**
 * A memory as a model reads it, in this order: what it says and how far to trust it; no mind,
 * namespace, writer or creation time. A new field of the memory is one more line here.
 */
export const MEMORY_FOR_MODELS = {
  id: { schema: z.string().describe("For memory_forget") },
  category: { schema: z.enum(MEMORY_FIELDS.category.enum) },
  key: { schema: z.string() },
  content: { schema: z.string() },
  tags: { leftOutWhen: [[]], schema: z.array(z.string()).optional() },
  priority: { leftOutWhen: ["normal"], schema: z.enum(MEMORY_FIELDS.priority.enum).optional().describe("Left out when normal") },
  verified: { schema: z.boolean().describe("Confirmed by a person") },
  score: { as: "score", schema: z.number().optional().describe("Search relevance, higher first") },
  expires_at: { to: "expires", as: "date", schema: date.optional() },
  updated_at: { to: "updated", as: "date", schema: date },
  observed_at: { to: "stated", as: "date", leftOutWhenSameAs: "created_at", schema: date.optional().describe("When it was stated, when not when stored") },
  valid_until: { to: "replaced", as: "date", schema: date.optional().describe("When a later statement replaced it") },
  superseded_by: { schema: z.string().optional().describe("The id of the memory that replaced it") },
} as const satisfies Record<string, FieldForModels>;

/** An ISO 8601 time to the minute, in UTC as the service gives it: `2026-12-06T10:11Z`. */
export function shortDate(value: string): string {
  const found = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(value);
  return found ? `${found[1]}T${found[2]}Z` : value;
}

/** A score to three significant digits (`1.2999999787653283e-6` → `0.0000013`). */
export const rounded = (score: number): number => Number(score.toPrecision(3));

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A compact memory's schema, from MEMORY_FOR_MODELS. */
export const compactMemorySchema = z.object(
  Object.fromEntries(Object.entries(MEMORY_FOR_MODELS).map(([field, rule]: [string, FieldForModels]) => [rule.to ?? field, rule.schema])),
) as z.ZodObject<{ [F in keyof typeof MEMORY_FOR_MODELS as ShownName<F>]: (typeof MEMORY_FOR_MODELS)[F]["schema"] }>;
type ShownName<F extends keyof typeof MEMORY_FOR_MODELS> = (typeof MEMORY_FOR_MODELS)[F] extends { to: infer T extends string } ? T : F;

export type CompactMemory = z.output<typeof compactMemorySchema>;

/** A memory (with its search score, when it has one) as a model reads it. */
export function compactMemory(memory: object): CompactMemory {
  const given = memory as Record<string, unknown>;
  const shown: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(MEMORY_FOR_MODELS) as [string, FieldForModels][]) {
    const value = given[field];
    if (value === null || value === undefined || rule.leftOutWhen?.some((v) => same(v, value))) continue;
    if (rule.leftOutWhenSameAs && same(given[rule.leftOutWhenSameAs], value)) continue;
    shown[rule.to ?? field] = rule.as === "date" ? shortDate(String(value)) : rule.as === "score" ? rounded(Number(value)) : value;
  }
  return shown as CompactMemory;
}

/** What each memory tool answers a model, as the MCP tools declare it (outputSchema) and the AI SDK tools return it. */
export const COMPACT_OUTPUT = {
  memory_search: z.object({ results: z.array(compactMemorySchema).describe("Best first") }),
  memory_store: z.object({ created: z.boolean().describe("false: an existing memory was updated in place"), memory: compactMemorySchema }),
  memory_recall: z.object({ tokens: z.number().int(), text: z.string() }),
  session_context: z.object({
    system: z.string().describe("The memory as a data block, unverified facts marked"),
    prompt: z.string().describe("The conversation"),
    tokens: z.number().int(),
    budget: z.number().int(),
    left_out: z.record(z.string(), z.number().int()).optional().describe("Parts left out, counted by why"),
  }),
};

export type CompactOutput = { [T in keyof typeof COMPACT_OUTPUT]: z.output<(typeof COMPACT_OUTPUT)[T]> };

/** Search hits as a model reads them. */
export const compactSearch = (found: { results: readonly object[] }): CompactOutput["memory_search"] => ({ results: found.results.map(compactMemory) });

/** A stored memory as a model reads it. */
export const compactStored = (stored: { created: boolean; memory: object }): CompactOutput["memory_store"] => ({
  created: stored.created,
  memory: compactMemory(stored.memory),
});

/** A recall as a model reads it: its text and what it costs. */
export const compactRecall = (recall: { tokens: number; text: string }): CompactOutput["memory_recall"] => ({ tokens: recall.tokens, text: recall.text });

/** The context to answer with and its cost; the parts' own texts (already in it) are left out, counted when dropped. */
export function compactContext(context: {
  system: string;
  prompt: string;
  tokens: number;
  budget: number;
  parts: readonly { included: boolean; reason: string }[];
}): CompactOutput["session_context"] {
  const dropped: Record<string, number> = {};
  for (const part of context.parts) if (!part.included) dropped[part.reason] = (dropped[part.reason] ?? 0) + 1;
  const reasons = Object.keys(dropped).sort();
  return {
    system: context.system,
    prompt: context.prompt,
    tokens: context.tokens,
    budget: context.budget,
    ...(reasons.length > 0 && { left_out: Object.fromEntries(reasons.map((r) => [r, dropped[r]!])) }),
  };
}

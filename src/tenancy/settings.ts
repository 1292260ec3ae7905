import { z } from "zod";

/** Per-mind settings with their allowed ranges; a missing value takes the default. */
export const mindSettingsSchema = z.strictObject({
  history_cap: z.number().int().min(20).max(5000).default(200),
  llm_window: z.number().int().min(1).max(100).default(12),
  extract_every: z.number().int().min(2).max(500).default(20),
  ephemeral_ttl: z.number().int().min(3).max(5).default(3),
  daily_token_budget: z.number().int().min(0).max(100_000_000).nullable().default(null),
  // Quotas: a write that would pass one is refused (403 quota_exceeded). The ceilings keep a
  // mind's owner from lifting them past what one database should hold for one mind.
  max_memories: z.number().int().min(0).max(1_000_000).default(100_000),
  max_notes: z.number().int().min(0).max(1_000_000).default(100_000),
  max_bytes: z.number().int().min(0).max(1024 * 1024 * 1024).default(256 * 1024 * 1024),
});

export type MindSettings = z.infer<typeof mindSettingsSchema>;

/** A partial update of settings, as PATCH accepts it. */
export const mindSettingsPatchSchema = mindSettingsSchema.partial();

/** Stored settings merged over the defaults; unknown stored keys are dropped. */
export function resolveSettings(stored: Record<string, unknown>): MindSettings {
  const known = Object.fromEntries(
    Object.entries(stored).filter(([k]) => k in mindSettingsSchema.shape),
  );
  return mindSettingsSchema.parse(known);
}

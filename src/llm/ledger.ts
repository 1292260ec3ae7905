import { and, asc, desc, eq, gte, sql } from "drizzle-orm";
import type { Clock } from "../clock";
import type { InDb } from "../db/client";
import { llmUsage } from "../db/schema";
import { AppError } from "../errors";
import { logFailure } from "../observe/log";

/** What the ledger needs: the mind's database and the clock that says which day it is. */
export type Ledger = InDb & { clock: Clock };

export const PURPOSES = ["extraction", "consolidation", "chat", "embedding"] as const;
export type Purpose = (typeof PURPOSES)[number];

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface UsageRow extends TokenUsage {
  day: string;
  purpose: string;
  calls: number;
  failures: number;
}

/** Whose tokens a model call spends, and that mind's daily limit (null: none). */
export interface TokenAccount {
  mindId: string;
  dailyBudget: number | null;
}

/** The ledger's day: the UTC date, so a budget resets at the same instant everywhere. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** Tokens, in and out, the account's model calls have used today. */
export async function tokensUsedToday({ shard, clock }: Ledger, { mindId }: Pick<TokenAccount, "mindId">): Promise<number> {
  const row = await shard
    .select({ used: sql<number>`coalesce(sum(${llmUsage.inputTokens} + ${llmUsage.outputTokens}), 0)` })
    .from(llmUsage)
    .where(and(eq(llmUsage.mindId, mindId), eq(llmUsage.day, utcDay(clock.now()))))
    .get();
  return row?.used ?? 0;
}

/** Throws budget_exceeded when the mind has used its daily tokens; null means no limit. */
export async function assertWithinBudget(deps: Ledger, account: TokenAccount): Promise<void> {
  const { dailyBudget } = account;
  if (dailyBudget === null) return;
  const used = await tokensUsedToday(deps, account);
  if (used >= dailyBudget) {
    throw new AppError("budget_exceeded", `the mind has used ${used} of its ${dailyBudget} daily tokens; work waits for tomorrow`);
  }
}

/** Where work may be left until after the answer: the entry point's waitUntil, when it has one. */
export type Deferring = { defer?: (work: Promise<unknown>) => void };

/**
 * recordUsage left to the entry point's deferred work, so an answer never waits on the primary
 * for its ledger line (a failed write is logged; the call was made either way); awaited where
 * nothing defers. The budget check before the next call reads it once written.
 */
export async function recordUsageLater(
  deps: Ledger & Deferring,
  account: Pick<TokenAccount, "mindId">,
  purpose: Purpose,
  usage: TokenUsage,
  failed: boolean,
): Promise<void> {
  const write = recordUsage(deps, account, purpose, usage, failed);
  if (!deps.defer) return write;
  deps.defer(write.catch((err: unknown) => logFailure("usage_ledger_write_failed", err, { mind: account.mindId })));
}

/** Adds one model call to the account's ledger. A failed call still costs what the provider reported. */
export async function recordUsage(
  { shard, clock }: Ledger,
  { mindId }: Pick<TokenAccount, "mindId">,
  purpose: Purpose,
  usage: TokenUsage,
  failed: boolean,
): Promise<void> {
  const failures = failed ? 1 : 0;
  await shard
    .insert(llmUsage)
    .values({
      mindId,
      day: utcDay(clock.now()),
      purpose,
      calls: 1,
      failures,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
    })
    .onConflictDoUpdate({
      target: [llmUsage.mindId, llmUsage.day, llmUsage.purpose],
      set: {
        calls: sql`${llmUsage.calls} + 1`,
        failures: sql`${llmUsage.failures} + ${failures}`,
        inputTokens: sql`${llmUsage.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${llmUsage.outputTokens} + ${usage.outputTokens}`,
      },
    });
}

/** The account's ledger from `sinceDay` on, newest day first. */
export async function usageSince({ shard }: InDb, { mindId }: Pick<TokenAccount, "mindId">, sinceDay: string): Promise<UsageRow[]> {
  return shard
    .select({
      day: llmUsage.day,
      purpose: llmUsage.purpose,
      calls: llmUsage.calls,
      failures: llmUsage.failures,
      inputTokens: llmUsage.inputTokens,
      outputTokens: llmUsage.outputTokens,
    })
    .from(llmUsage)
    .where(and(eq(llmUsage.mindId, mindId), gte(llmUsage.day, sinceDay)))
    .orderBy(desc(llmUsage.day), asc(llmUsage.purpose));
}

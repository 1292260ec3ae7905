import { AppError } from "../errors";
import { tokensUsedToday } from "../llm/ledger";
import { rateLimitedIn } from "../llm/limited-model";
import { logFailure } from "../observe/log";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import { claimNotes, releaseClaim } from "./claims";
import { compareAndSwapCold, getCold } from "./cold-store";
import { documentLocale } from "./document";
import { mergeOffline, mergeWithModel } from "./merge";

export interface ConsolidationOptions {
  /**
   * Notes folded by one consolidation at most; the rest wait for the next run (the hourly unit
   * goes round again at once), so N waiting notes take ceil(N / maxNotes) runs.
   */
  maxNotes: number;
  /** Read-merge-write rounds before a namespace that keeps changing is left for later. */
  maxAttempts: number;
}

export const DEFAULT_CONSOLIDATION: ConsolidationOptions = { maxNotes: 100, maxAttempts: 3 };

export type ConsolidationOutcome =
  | { status: "nothing" | "budget" }
  | {
      status: "done";
      consolidationId: string;
      version: number;
      foldedNotes: number;
      attempts: number;
      modelCalls: number;
      /** Parts of the notes the model answered past its bound for, folded deterministically. */
      offlineParts: number;
    }
  | { status: "failed"; consolidationId: string; error: string; code: string; budget: boolean; retryAfterSeconds?: number };

/**
 * Folds the namespace's waiting notes into its cold memory: claim them, read cold memory,
 * merge (with the model, or deterministically when there is none) and compare-and-swap,
 * deleting exactly the claimed notes in the same batch. A concurrent write makes it read and
 * merge again; any failure gives the notes back. No note is lost and none is folded twice.
 */
export async function consolidateNotes(ctx: MindContext, options: ConsolidationOptions = DEFAULT_CONSOLIDATION): Promise<ConsolidationOutcome> {
  const { mind } = ctx;
  const target = { mindId: ctx.scope.mindId, agent: ctx.scope.agent };
  const account = tokenAccountOf(ctx);
  const model = ctx.model();
  // Over budget, the notes are not even claimed: they simply wait for tomorrow.
  if (model && account.dailyBudget !== null && (await tokensUsedToday(ctx, account)) >= account.dailyBudget) return { status: "budget" };

  const claim = await claimNotes(ctx, { mode: model ? "model" : "offline", limit: options.maxNotes });
  if (!claim) return { status: "nothing" };
  const locale = documentLocale(mind.locale);
  let modelCalls = 0;
  let offlineParts = 0;
  try {
    for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
      const cold = await getCold(ctx);
      const input = { locale, current: cold.text, currentVersion: cold.version, notes: claim.notes };
      let text: string;
      if (model) {
        const answer = await mergeWithModel(ctx, model, { ...input, account });
        modelCalls += answer.calls;
        offlineParts += answer.offlineParts;
        text = answer.value;
      } else {
        text = mergeOffline(input);
      }
      // Past max_bytes the write is refused whole (the guard ends its batch) and the notes wait.
      const written = await writeWithinQuota(ctx, { bytes: storedBytes(text) }, (guard) =>
        compareAndSwapCold(ctx.shard, {
          ...target,
          text,
          expectedVersion: cold.version,
          author: "consolidation",
          now: ctx.clock.now().toISOString(),
          consolidationId: claim.consolidationId,
          attempts: attempt,
          guard,
        }),
      );
      if (written.ok) {
        return {
          status: "done",
          consolidationId: claim.consolidationId,
          version: written.version,
          foldedNotes: written.foldedNotes,
          attempts: attempt,
          modelCalls,
          offlineParts,
        };
      }
    }
    throw new AppError("memory_changed", `cold memory changed during each of ${options.maxAttempts} attempts`);
  } catch (error) {
    // Only an AppError's text is meant for the mind's users; anything else (a D1 error with its
    // SQL, a bug) is logged here and recorded as a code and a safe sentence.
    const message = error instanceof AppError ? `${error.code}: ${error.message}` : "internal: the consolidation failed; its notes wait for the next run";
    if (!(error instanceof AppError)) logFailure("consolidation_failed", error, { consolidation_id: claim.consolidationId });
    try {
      await releaseClaim(ctx, claim.consolidationId, message);
    } catch (releaseError) {
      // The next hourly run's sweep frees the notes of a claim that could not be released.
      logFailure("consolidation_claim_not_released", releaseError, { consolidation_id: claim.consolidationId });
    }
    const code = error instanceof AppError ? error.code : "internal";
    const limited = rateLimitedIn(error);
    return {
      status: "failed",
      consolidationId: claim.consolidationId,
      error: message,
      code,
      budget: code === "budget_exceeded",
      ...(limited && { retryAfterSeconds: limited.retryAfterSeconds }),
    };
  }
}

import { AppError, rateLimitedIn } from "../errors";
import { type TokenAccount, tokensUsedToday } from "../llm/ledger";
import type { LanguageModel } from "../llm/providers";
import { logFailure } from "../observe/log";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import { COLD_FULL, claimNotes, coldFoundFull, releaseClaim } from "./claims";
import { COLD_STORED_MAX_CHARS, type Cold, compareAndSwapCold, getCold } from "./cold-store";
import { documentLocale } from "./document";
import { type MergeInput, mergeOffline, mergeWithModel } from "./merge";

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
  /** `full`: a consolidation found cold memory full at the version it holds, so nothing is claimed. */
  | { status: "nothing" | "budget" | "full" }
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
 * A document that would pass COLD_STORED_MAX_CHARS is not written: the failure says so, and
 * until that version is edited the namespace is skipped without claiming or calling the model.
 */
export async function consolidateNotes(mindContext: MindContext, options: ConsolidationOptions = DEFAULT_CONSOLIDATION): Promise<ConsolidationOutcome> {
  const target = { mindId: mindContext.scope.mindId, agent: mindContext.scope.agent };
  const account = tokenAccountOf(mindContext);
  const model = mindContext.model();
  // Over budget, the notes are not even claimed: they simply wait for tomorrow.
  if (model && account.dailyBudget !== null && (await tokensUsedToday(mindContext, account)) >= account.dailyBudget) return { status: "budget" };
  if (await coldFoundFull(mindContext)) return { status: "full" };

  const claim = await claimNotes(mindContext, { mode: model ? "model" : "offline", limit: options.maxNotes });
  if (!claim) return { status: "nothing" };
  const locale = documentLocale(mindContext.mind.locale);
  const merging: Merging = { modelCalls: 0, offlineParts: 0 };
  try {
    for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
      const cold = await getCold(mindContext);
      merging.readVersion = cold.version;
      // A document at its bound has no room for a note: found before any model call.
      if (cold.text.length >= COLD_STORED_MAX_CHARS) throw coldMemoryFull(cold, claim.notes.length);
      const text = await merge(mindContext, model, merging, { locale, current: cold.text, currentVersion: cold.version, notes: claim.notes, account });
      if (text.length > COLD_STORED_MAX_CHARS) throw coldMemoryFull(cold, claim.notes.length, text.length);
      // Past max_bytes the write is refused whole (the guard ends its batch) and the notes wait.
      const written = await writeWithinQuota(mindContext, { bytes: storedBytes(text) }, (guard) =>
        compareAndSwapCold(mindContext.shard, {
          ...target,
          text,
          expectedVersion: cold.version,
          author: "consolidation",
          now: mindContext.clock.now().toISOString(),
          consolidationId: claim.consolidationId,
          attempts: attempt,
          guard,
          writer: { context: mindContext, actor: "consolidation" },
        }),
      );
      if (written.ok) {
        const { modelCalls, offlineParts } = merging;
        const { version, foldedNotes } = written;
        return { status: "done", consolidationId: claim.consolidationId, version, foldedNotes, attempts: attempt, modelCalls, offlineParts };
      }
    }
    throw new AppError("memory_changed", `cold memory changed during each of ${options.maxAttempts} attempts`);
  } catch (error) {
    return failConsolidation(mindContext, claim.consolidationId, error, merging.readVersion);
  }
}

/** What a consolidation's merges have come to so far, across its attempts. */
interface Merging {
  modelCalls: number;
  offlineParts: number;
  /** The cold memory version last read: a full document's failure records it. */
  readVersion?: number;
}

/** The merged document: with the model when there is one (its calls counted), deterministically otherwise. */
async function merge(
  mindContext: MindContext,
  model: LanguageModel | null,
  merging: Merging,
  input: MergeInput & { account: TokenAccount },
): Promise<string> {
  if (!model) return mergeOffline(input);
  const answer = await mergeWithModel(mindContext, model, input);
  merging.modelCalls += answer.calls;
  merging.offlineParts += answer.offlineParts;
  return answer.value;
}

/** Gives a failed consolidation's notes back, records why and answers the failure. */
async function failConsolidation(mindContext: MindContext, consolidationId: string, error: unknown, readVersion?: number): Promise<ConsolidationOutcome> {
  // Only an AppError's text is meant for the mind's users; anything else (a D1 error with its
  // SQL, a bug) is logged here and recorded as a code and a safe sentence.
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : "internal: the consolidation failed; its notes wait for the next run";
  if (!(error instanceof AppError)) logFailure("consolidation_failed", error, { consolidation_id: consolidationId });
  const code = error instanceof AppError ? error.code : "internal";
  try {
    // A full document records the version it was found full at: that version is not tried again.
    await releaseClaim(mindContext, consolidationId, { error: message, ...(code === COLD_FULL && { fromVersion: readVersion }) });
  } catch (releaseError) {
    // The next hourly run's sweep frees the notes of a claim that could not be released.
    logFailure("consolidation_claim_not_released", releaseError, { consolidation_id: consolidationId });
  }
  const limited = rateLimitedIn(error);
  return {
    status: "failed",
    consolidationId,
    error: message,
    code,
    budget: code === "budget_exceeded",
    ...(limited && { retryAfterSeconds: limited.retryAfterSeconds }),
  };
}

/** The failure of a consolidation whose document would pass the bound, saying how to make room. */
function coldMemoryFull(cold: Cold, notes: number, merged?: number): AppError {
  const bound = COLD_STORED_MAX_CHARS.toLocaleString("en");
  const held = `cold memory is full: it holds ${cold.text.length.toLocaleString("en")} characters of at most ${bound}`;
  const would = merged === undefined ? "" : `, and folding ${notes} notes would take it to ${merged.toLocaleString("en")}`;
  return new AppError(
    COLD_FULL,
    `${held}${would}. The notes wait: make room by editing it (PUT /cold or the web UI's cold memory page), and the next hourly run folds them`,
  );
}

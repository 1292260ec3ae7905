import { generateText, type LanguageModelUsage, NoObjectGeneratedError, Output } from "ai";
import type { z } from "zod";
import { AppError, rateLimitedIn } from "../errors";
import { assertWithinBudget, type Deferring, type Ledger, type Purpose, recordUsage, recordUsageLater, type TokenAccount, type TokenUsage } from "./ledger";
import type { LanguageModel } from "./providers";
import { loadTokenCounter } from "./tokens";

export interface ModelRequest {
  /** The mind that pays, with its daily budget (`tokenAccountOf` a mind's context). */
  account: TokenAccount;
  purpose: Purpose;
  system: string;
  prompt: string;
  maxOutputTokens?: number;
  /** The ledger line is left to the entry point's deferred work: the answer goes on at once (a chat reply). */
  recordLater?: boolean;
}

export interface ModelAnswer<T> {
  value: T;
  /** Tokens of every call made for this answer, the retried one included. */
  usage: TokenUsage;
  calls: number;
}

// Malformed answers get one more chance; transport errors are retried by the SDK itself.
const OBJECT_ATTEMPTS = 2;
const SDK_RETRIES = 1;
const CALL_TIMEOUT_MS = 90_000;

type Outcome<T> = { ok: true; value: T; usage: TokenUsage } | { ok: false; malformed: boolean; error: unknown; usage: TokenUsage };

/**
 * Asks the model for a JSON object matching `schema`. Every call is checked against the
 * mind's daily budget and written to the ledger; a malformed answer (broken JSON, wrong
 * shape) is retried once, then fails with model_failed. Nothing is ever returned unvalidated.
 */
export async function generateObjectFor<T>(
  deps: Ledger,
  model: LanguageModel,
  request: ModelRequest,
  schema: z.ZodType<T>,
): Promise<ModelAnswer<T>> {
  const total: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  for (let attempt = 1; attempt <= OBJECT_ATTEMPTS; attempt++) {
    await assertWithinBudget(deps, request.account);
    const outcome = await callForObject(model, request, schema);
    // Refused by the shared limiter before reaching the provider: no call to record.
    if (!outcome.ok) throwIfRateLimited(outcome.error);
    await recordUsage(deps, request.account, request.purpose, outcome.usage, !outcome.ok);
    total.inputTokens += outcome.usage.inputTokens;
    total.outputTokens += outcome.usage.outputTokens;
    if (outcome.ok) return { value: outcome.value, usage: total, calls: attempt };
    if (!outcome.malformed) throw modelFailed(outcome.error);
  }
  throw new AppError("model_failed", `the model answered with malformed output ${OBJECT_ATTEMPTS} times`);
}

/** Asks the model for plain text, within the budget and recorded in the ledger (after the answer, with `recordLater`). */
export async function generateTextFor(deps: Ledger & Deferring, model: LanguageModel, request: ModelRequest): Promise<ModelAnswer<string>> {
  await assertWithinBudget(deps, request.account);
  let outcome: Outcome<string>;
  try {
    const result = await generateText({ model, ...callSettings(request) });
    outcome = { ok: true, value: result.text, usage: await tokensOf(result.usage, request, result.text) };
  } catch (error) {
    throwIfRateLimited(error);
    outcome = { ok: false, malformed: false, error, usage: { inputTokens: 0, outputTokens: 0 } };
  }
  await (request.recordLater ? recordUsageLater : recordUsage)(deps, request.account, request.purpose, outcome.usage, !outcome.ok);
  if (!outcome.ok) throw modelFailed(outcome.error);
  return { value: outcome.value, usage: outcome.usage, calls: 1 };
}

async function callForObject<T>(model: LanguageModel, request: ModelRequest, schema: z.ZodType<T>): Promise<Outcome<T>> {
  try {
    const result = await generateText({ model, ...callSettings(request), output: Output.object({ schema }) });
    return { ok: true, value: result.output, usage: await tokensOf(result.usage, request, result.text) };
  } catch (error) {
    if (NoObjectGeneratedError.isInstance(error)) {
      return { ok: false, malformed: true, error, usage: await tokensOf(error.usage, request, error.text ?? "") };
    }
    return { ok: false, malformed: false, error, usage: { inputTokens: 0, outputTokens: 0 } };
  }
}

function callSettings(request: ModelRequest) {
  return {
    instructions: request.system,
    prompt: request.prompt,
    maxOutputTokens: request.maxOutputTokens,
    maxRetries: SDK_RETRIES,
    timeout: CALL_TIMEOUT_MS,
  };
}

/** The provider's token counts; where it reports none, our own count keeps the budget honest. */
async function tokensOf(usage: LanguageModelUsage | undefined, request: ModelRequest, answer: string): Promise<TokenUsage> {
  let inputTokens = usage?.inputTokens;
  let outputTokens = usage?.outputTokens;
  if (inputTokens === undefined || outputTokens === undefined) {
    const count = await loadTokenCounter();
    inputTokens ??= count(request.system) + count(request.prompt);
    outputTokens ??= count(answer);
  }
  return { inputTokens, outputTokens };
}

function throwIfRateLimited(error: unknown): void {
  const limited = rateLimitedIn(error);
  if (limited) throw limited;
}

function modelFailed(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AppError("model_failed", `the model call failed: ${message.slice(0, 300)}`);
}

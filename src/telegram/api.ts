import type { Transformer } from "grammy";
import type { Journal } from "./journal";

/** Telegram asked to wait longer than one handling should: the object tries the update again later. */
export class RetryLater extends Error {
  constructor(readonly afterMs: number) {
    super(`Telegram asked to wait ${Math.ceil(afterMs / 1000)} s`);
    this.name = "RetryLater";
  }
}

/** Waits up to this long inside one handling when Telegram answers 429; longer waits go to an alarm. */
const MAX_INLINE_WAIT_S = 5;
const INLINE_ATTEMPTS = 3;

/**
 * Every Bot API call of an update goes through the journal, numbered in call order: a call
 * that succeeded is never made again when the update is handled again. A 429 answer is
 * respected: a short retry_after is waited out, a long one postpones the update.
 */
export function journaledCalls(journal: Journal, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Transformer {
  let calls = 0;
  return (prev, method, payload, signal) =>
    journal.onceIf(
      `api:${++calls}:${method}`,
      async () => {
        for (let attempt = 1; ; attempt++) {
          const response = await prev(method, payload, signal);
          if (response.ok || response.error_code !== 429) return response;
          const waitS = response.parameters?.retry_after ?? 1;
          if (waitS > MAX_INLINE_WAIT_S || attempt >= INLINE_ATTEMPTS) throw new RetryLater(waitS * 1000);
          await sleep(waitS * 1000);
        }
      },
      (response) => response.ok,
    );
}

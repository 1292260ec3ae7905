import { describe, expect, it } from "vitest";
import { EMBED_RETRY } from "../src/memory/vectors";
import { OPERATIONS } from "../src/portability/operations";
import { backoffSeconds, UNIT_RETRY } from "../src/queue/consume";
import { givenUp, type RetryPolicy, retryDelay } from "../src/retry";
import { CHAT_RETRY, MAX_ATTEMPTS } from "../src/telegram/chat-object";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const delays = (policy: RetryPolicy, upTo: number, random = () => 0.5) =>
  Array.from({ length: upTo }, (_, i) => retryDelay(policy, i + 1, random));

describe("the retry policy", () => {
  it("doubles from the first wait up to the cap, and never gives up unless told", () => {
    const policy = { firstMs: 100, maxMs: 1_000 };
    expect(delays(policy, 6)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(retryDelay(policy, 0)).toBe(100);
    expect(retryDelay(policy, 10_000)).toBe(1_000);
    expect(givenUp(policy, 1_000_000)).toBe(false);
    expect([1, 2, 3].map((n) => givenUp({ ...policy, attempts: 3 }, n))).toEqual([false, false, true]);
  });

  it("spreads each wait by its jitter, through the random it is given", () => {
    const policy = { firstMs: 1_000, maxMs: 8_000, jitter: 0.25 };
    expect(retryDelay(policy, 1, () => 0)).toBe(750);
    expect(retryDelay(policy, 1, () => 0.5)).toBe(1_000);
    expect(retryDelay(policy, 1, () => 1)).toBe(1_250);
    // The cap is spread too: retries of many callers at the cap do not fall together.
    expect(retryDelay(policy, 9, () => 0)).toBe(6_000);
    expect(retryDelay(policy, 9, () => 1)).toBe(10_000);
  });

  it("keeps the queue consumer's numbers: 30 s, 1, 2, 4, 8 min, then every 15 min, each ±20 %", () => {
    const middle = () => 0.5;
    expect(Array.from({ length: 8 }, (_, i) => backoffSeconds(i + 1, middle))).toEqual([30, 60, 120, 240, 480, 900, 900, 900]);
    expect(backoffSeconds(1, () => 0)).toBe(24);
    expect(backoffSeconds(6, () => 1)).toBe(1_080);
    expect(UNIT_RETRY.attempts).toBeUndefined();
  });

  it("keeps the chat object's numbers: 1, 2, 4 s, given up at the fourth failure", () => {
    expect(delays(CHAT_RETRY, 3)).toEqual([SECOND, 2 * SECOND, 4 * SECOND]);
    expect(MAX_ATTEMPTS).toBe(4);
    expect([3, 4].map((n) => givenUp(CHAT_RETRY, n))).toEqual([false, true]);
  });

  it("keeps the embeddings' numbers: 2, 4, 8 … minutes, at most a day", () => {
    expect(delays(EMBED_RETRY, 3)).toEqual([2 * MINUTE, 4 * MINUTE, 8 * MINUTE]);
    expect(retryDelay(EMBED_RETRY, 10)).toBe(1_024 * MINUTE);
    expect(retryDelay(EMBED_RETRY, 11)).toBe(24 * 60 * MINUTE);
  });

  it("keeps the operations object's numbers: an import is given up after 8 runs, a move and an erasure never", () => {
    expect(delays(OPERATIONS.import.policy, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64].map((s) => s * SECOND));
    expect([7, 8].map((n) => givenUp(OPERATIONS.import.policy, n))).toEqual([false, true]);
    expect(delays(OPERATIONS.move.policy, 9)).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 300].map((s) => s * SECOND));
    expect(givenUp(OPERATIONS.move.policy, 1_000)).toBe(false);
    expect(givenUp(OPERATIONS.erase.policy, 1_000)).toBe(false);
  });
});

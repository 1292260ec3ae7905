import { describe, expect, it } from "vitest";
import { Lru } from "../src/lru";

describe("the isolate's bounded cache", () => {
  it("holds at most its bytes, dropping the least recently used first", () => {
    const cache = new Lru<string>({ maxEntries: 1_000, maxBytes: 10_000, ttlMs: 60_000, sizeOf: (key, value) => key.length + value.length });
    for (let n = 0; n < 100; n++) cache.set(`k${String(n).padStart(3, "0")}`, "x".repeat(496), 0);
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.size).toBe(20);
    expect(cache.get("k000", 1)).toBeUndefined();
    expect(cache.get("k099", 1)).toBe("x".repeat(496));
  });

  it("keeps no entry larger than a tenth of its bytes, and a replaced or deleted entry gives its bytes back", () => {
    const cache = new Lru<string>({ maxEntries: 1_000, maxBytes: 10_000, ttlMs: 60_000, sizeOf: (key, value) => key.length + value.length });
    cache.set("small", "a", 0);
    cache.set("huge", "y".repeat(60 * 1024), 0);
    expect(cache.get("huge", 1)).toBeUndefined();
    expect(cache.get("small", 1)).toBe("a");
    cache.set("small", "abc", 0);
    expect(cache.bytes).toBe(8);
    cache.delete("small");
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });

  it("counts an expired entry's bytes out when it is read", () => {
    const cache = new Lru<number>({ maxEntries: 10, maxBytes: 1_000, ttlMs: 100 });
    cache.set("a", 1, 0);
    expect(cache.bytes).toBeGreaterThan(0);
    expect(cache.get("a", 100)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});

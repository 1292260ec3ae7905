import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { guardObject, inInvocation } from "../../src/limits/invocation-guard";
import { asInvocation, InvocationTally, PLATFORM_LIMITS, takePassedLimits } from "../../src/limits/platform";

/** Runs `n` queries on the directory through the bindings an invocation sees: one alone, the rest in a batch. */
async function queries(bindings: Cloudflare.Env, n: number): Promise<void> {
  if (n > 1) await bindings.DB.batch(Array.from({ length: n - 1 }, (_, i) => bindings.DB.prepare("select ?1 as n").bind(i)));
  if (n > 0) await bindings.DB.prepare("select 1 as n").first();
}

describe("the invocation guard", () => {
  it("is on in the tests and names the paid plan's limits", () => {
    expect(env.INVOCATION_GUARD).toBe("1");
    expect(PLATFORM_LIMITS).toEqual({ d1Queries: 1000, subrequests: 1000 });
  });

  it("lets an invocation make 1,000 D1 queries", async () => {
    await expect(inInvocation("fetch", env, (bindings) => queries(bindings, 1000))).resolves.toBeUndefined();
    expect(takePassedLimits()).toEqual([]);
  });

  it("fails an invocation at its 1,001st D1 query", async () => {
    const done: number[] = [];
    const run = inInvocation("fetch", env, async (bindings) => {
      await queries(bindings, 1000);
      done.push(1000);
      await queries(bindings, 1);
      done.push(1001);
    });
    await expect(run).rejects.toThrow("invocation fetch passed 1,000 D1 queries");
    expect(done).toEqual([1000]);
    expect(takePassedLimits().map((e) => e.message)).toEqual(["invocation fetch passed 1,000 D1 queries"]);
  });

  it("counts each statement of a batch", async () => {
    const batch = (bindings: Cloudflare.Env, n: number) =>
      bindings.DB.batch(Array.from({ length: n }, (_, i) => bindings.DB.prepare("select ?1 as n").bind(i)));
    await expect(inInvocation("queue", env, (bindings) => batch(bindings, 1001))).rejects.toThrow("passed 1,000 D1 queries");
    expect(takePassedLimits()).toHaveLength(1);
  });

  it("counts the Worker's own invocations", async () => {
    const { exports } = await import("cloudflare:workers");
    const original = globalThis.fetch;
    // A plain stand-in: the Worker's guarded invocation puts its counter over it.
    const standIn = (...args: Parameters<typeof fetch>) => original(...args);
    globalThis.fetch = standIn;
    try {
      await exports.default.fetch(new Request("https://edgemind.test/health"));
      expect(globalThis.fetch).not.toBe(standIn);
    } finally {
      globalThis.fetch = original;
    }
  });

  it("counts the fetches of a test's spy put over the counter (a spy copies the counter's own properties)", async () => {
    await asInvocation(new InvocationTally("before the spy"), async () => undefined);
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response("ok"));
    try {
      const tally = new InvocationTally("through the spy");
      await asInvocation(tally, async () => {
        await fetch("https://receiver.test/spied");
        await fetch("https://receiver.test/spied");
      });
      expect(tally.subrequests).toBe(2);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it("fails the invocation even when its code caught the refusal", async () => {
    const run = inInvocation("scheduled", env, async (bindings) => {
      await queries(bindings, 1000).catch(() => undefined);
      await queries(bindings, 5).catch(() => undefined);
      return "carried on";
    });
    await expect(run).rejects.toThrow("invocation scheduled passed 1,000 D1 queries");
    takePassedLimits();
  });

  it("counts each invocation apart", async () => {
    for (let i = 0; i < 3; i++) await inInvocation("fetch", env, (bindings) => queries(bindings, 600));
    expect(takePassedLimits()).toEqual([]);
  });

  it("counts queue sends and outgoing fetches as subrequests", async () => {
    const sent: unknown[] = [];
    const queue = { send: async (m: unknown) => void sent.push(m), sendBatch: async () => undefined };
    const run = inInvocation("queue", { ...env, JOBS: queue }, async (bindings) => {
      for (let i = 0; i < 1000; i++) await bindings.JOBS!.send({ unit: "retention", shard: "DB", run: "r" });
      await fetch("https://nowhere.invalid/").catch(() => undefined);
    });
    await expect(run).rejects.toThrow("invocation queue passed 1,000 subrequests");
    expect(sent).toHaveLength(1000);
    takePassedLimits();
  });

  it("makes each call of a Durable Object its own invocation", async () => {
    class Counter {
      constructor(readonly ctx: DurableObjectState, readonly bindings: Cloudflare.Env) {}
      async query(n: number): Promise<number> {
        await queries(this.bindings, n);
        return n;
      }
    }
    const Guarded = guardObject(Counter, "Counter");
    const object = new Guarded({} as DurableObjectState, env);
    expect(await object.query(1000)).toBe(1000);
    expect(await object.query(1000)).toBe(1000);
    await expect(object.query(1001)).rejects.toThrow("invocation Counter.query passed 1,000 D1 queries");
    takePassedLimits();
  });

  it("leaves the bindings unchanged when the setting is off", async () => {
    const off = { ...env, INVOCATION_GUARD: "" };
    await inInvocation("fetch", off, async (bindings) => {
      expect(bindings.DB).toBe(env.DB);
      await queries(bindings, 1001);
    });
    expect(takePassedLimits()).toEqual([]);
  });
});

import { createExecutionContext } from "cloudflare:test";
import { createWorkerEntrypointWrapper } from "cloudflare:test-internal";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { LEAK, runFuzz } from "../support/fuzz";

// A seeded run of the fuzzer (test/support/fuzz.ts): the same inputs on every run. The
// benchmark part `fuzz` sends tens of thousands more from other seeds.
const SEED = 20261203;
const CASES = 300;

describe("fuzzed requests", () => {
  it("every route, MCP tool, import and peer's file answers below 500, leaks no stack or SQL, and the Worker keeps answering", async () => {
    const result = await runFuzz({ seed: SEED, count: CASES });
    expect(result.failures).toEqual([]);
    expect(result.cases).toBe(CASES);
    // The run reaches the routes, the MCP tools, imports of archives and of peers' files, and some inputs get through.
    expect(Object.keys(result.byKind).sort()).toEqual(["import", "mcp", "peer-import", "route"]);
    expect(Object.keys(result.statuses).some((s) => s.startsWith("2"))).toBe(true);
  }, 300_000);

  it("a failure outside every route's handler is answered with a 500 in the error shape, not thrown out of fetch", async () => {
    // The OAuth provider in front of the routes reads its store without a handler of its own.
    const failingStore = {
      get: () => {
        throw new RangeError("Maximum call stack size exceeded");
      },
    } as unknown as KVNamespace;
    const request = new Request("https://edgemind.test/oauth/token", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      // A grant type the provider answers itself, in the Worker (a grant's code or token goes to the grant's object).
      body: "grant_type=client_credentials&client_id=fuzz&client_secret=fuzz",
    });
    const res = await worker.fetch!(request as Parameters<NonNullable<typeof worker.fetch>>[0], { ...env, OAUTH_KV: failingStore }, createExecutionContext());
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "internal", message: "internal error", requestId: res.headers.get("X-Request-Id") } });
    expect(text).not.toMatch(LEAK);
  });

  it("the test runtime can send the bench's 10,000 requests: its entrypoint wrapper is not wrapped again on every request", () => {
    // @cloudflare/vitest-pool-workers 0.15.1 put one more Proxy around the wrapper's prototype
    // per request, so each request was slower than the last until one overflowed the stack
    // (patches/ keeps it to one).
    const Wrapper = createWorkerEntrypointWrapper("default");
    new Wrapper(createExecutionContext(), env);
    const prototype = Wrapper.prototype;
    new Wrapper(createExecutionContext(), env);
    new Wrapper(createExecutionContext(), env);
    expect(Wrapper.prototype === prototype).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { runFuzz } from "../support/fuzz";

// A seeded run of the fuzzer (test/support/fuzz.ts): the same inputs on every run. The
// benchmark part `fuzz` sends tens of thousands more from other seeds.
const SEED = 20261203;
const CASES = 300;

describe("fuzzed requests", () => {
  it("every route, MCP tool and import answers below 500, leaks no stack or SQL, and the Worker keeps answering", async () => {
    const result = await runFuzz({ seed: SEED, count: CASES });
    expect(result.failures).toEqual([]);
    expect(result.cases).toBe(CASES);
    // The run reaches the routes, the MCP tools and imports, and some inputs get through.
    expect(Object.keys(result.byKind).sort()).toEqual(["import", "mcp", "route"]);
    expect(Object.keys(result.statuses).some((s) => s.startsWith("2"))).toBe(true);
  }, 300_000);
});

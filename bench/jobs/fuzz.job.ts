import { env } from "cloudflare:workers";
import { it } from "vitest";
import { runFuzz } from "../../test/support/fuzz";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as { seed: number; count: number; from: number; until: number; trace: boolean };

it("fuzzes every route, MCP tool and import", async () => {
  const t0 = performance.now();
  const result = await runFuzz({ seed: input.seed, count: input.count, from: input.from, until: input.until, probeEvery: 500, progress, trace: input.trace ? progress : undefined });
  report({ ...result, seconds: (performance.now() - t0) / 1000 });
});

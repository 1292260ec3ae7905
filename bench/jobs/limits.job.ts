import { env } from "cloudflare:workers";
import { it } from "vitest";
import { guardEnabled } from "../../src/limits/platform";
import type { LimitsInput } from "../lib/limits-data";
import { measureErasure } from "./limits-erase";
import { measureProducer, measureRetention } from "./limits-queue";
import { measureWebhooks } from "./limits-webhooks";
import { report } from "./report";
import { watchTallies } from "./tallies";

const input = (env as unknown as { BENCH_INPUT: LimitsInput }).BENCH_INPUT;

it("limits: erasing a mind at its quotas, a producer over a backlog, retention over a year, a burst of changes to ten webhooks, each invocation within Cloudflare's limits", async () => {
  if (!guardEnabled(env)) throw new Error("the limits job counts invocations: INVOCATION_GUARD must be 1");
  const watch = watchTallies();
  const erase = await measureErasure(input, watch);
  const producer = await measureProducer(input);
  const retention = await measureRetention(input);
  const webhooks = await measureWebhooks(input);
  report({ erase, producer, retention, webhooks });
});

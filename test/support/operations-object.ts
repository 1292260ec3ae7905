import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { mindOperationsObject } from "../../src/portability/mind-operations";
import { passMoveFence } from "./moves";

/** The mind's operations object in the test runtime. */
export const operationsObjectOf = (mindId: string) => mindOperationsObject(env.MIND_OPERATIONS, mindId);

/**
 * Runs the mind's operations object's alarms until nothing waits in it; answers how many it took. A move
 * waiting out the directory cache's bound after its switch is let through at once.
 */
export async function driveOperationsObject(mindId: string, most = 60): Promise<number> {
  const object = operationsObjectOf(mindId);
  for (let runs = 0; runs < most; runs++) {
    if ((await object.pending()).length === 0) return runs;
    await passMoveFence(mindId);
    await runDurableObjectAlarm(object);
  }
  throw new Error(`the operations object of ${mindId} still has work after ${most} alarms: ${JSON.stringify(await object.pending())}`);
}

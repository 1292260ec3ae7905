import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { mindJobObject } from "../../src/portability/job-object";
import { passMoveFence } from "./moves";

/** The mind's job object in the test runtime. */
export const jobObjectOf = (mindId: string) => mindJobObject(env.MIND_JOBS, mindId);

/**
 * Runs the mind's job object's alarms until nothing waits in it; answers how many it took. A move
 * waiting out the directory cache's bound after its switch is let through at once.
 */
export async function driveJobObject(mindId: string, most = 60): Promise<number> {
  const object = jobObjectOf(mindId);
  for (let runs = 0; runs < most; runs++) {
    if ((await object.pending()).length === 0) return runs;
    await passMoveFence(mindId);
    await runDurableObjectAlarm(object);
  }
  throw new Error(`the job object of ${mindId} still has work after ${most} alarms: ${JSON.stringify(await object.pending())}`);
}

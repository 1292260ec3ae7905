import { createApp } from "./app";
import { withOAuth } from "./auth/oauth";
import type { Env } from "./config";
import { HANDLERS, SCHEDULE } from "./jobs";
import { consumeWork } from "./queue/consume";
import { consumeDeadLetters } from "./queue/consume-dead-letters";
import { runCronWith } from "./queue/schedule";
import { createDeps } from "./deps";
import { escapedError } from "./http/errors";
import { withSecurityHeaders } from "./http/headers";
import { DEAD_LETTER_QUEUE } from "./queue/units";

export { MindJobObject } from "./portability/job-object";
export { ModelLimiterObject } from "./llm/model-limiter";
export { RateLimiterObject } from "./limits/rate-limiter";
export { SessionObject } from "./sessions/session-object";
export { TelegramChatObject } from "./telegram/chat-object";

// OAuth sits in front of the app: it checks tokens on /mcp and serves its own endpoints.
const worker = withOAuth(createApp());

export default {
  async fetch(request, env, ctx) {
    try {
      return withSecurityHeaders(await worker.fetch(request, env, ctx));
    } catch (err) {
      return withSecurityHeaders(escapedError(request, err));
    }
  },
  async scheduled(controller, env) {
    // A cron run only enqueues what is due; queue() below does the work.
    const runs = await runCronWith(createDeps(env), SCHEDULE, controller.cron);
    const failed = runs.filter((run) => run.error !== null);
    // A failed job is recorded in job_runs; failing the invocation also shows it in Cron Trigger logs.
    if (failed.length > 0) throw new Error(`failed jobs: ${failed.map((run) => `${run.job}: ${run.error}`).join("; ")}`);
  },
  async queue(batch, env) {
    const deps = createDeps(env);
    if (batch.queue === DEAD_LETTER_QUEUE) await consumeDeadLetters(deps, batch);
    else await consumeWork(deps, HANDLERS, batch);
  },
} satisfies ExportedHandler<Env>;

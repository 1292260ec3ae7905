import { createApp } from "./app";
import { withOAuth } from "./auth/oauth";
import type { Env } from "./config";
import { runCron } from "./cron/schedule";
import { escapedError } from "./http/errors";
import { withSecurityHeaders } from "./http/headers";

export { MindJobObject } from "./minds/job-object";
export { RateLimiterObject } from "./limits/rate-limiter";
export { ImportObject } from "./minds/import-object";
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
    const runs = await runCron(controller.cron, env);
    const failed = runs.filter((run) => run.error !== null);
    // A failed job is recorded in job_runs; failing the invocation also shows it in Cron Trigger logs.
    if (failed.length > 0) throw new Error(`failed jobs: ${failed.map((run) => `${run.job}: ${run.error}`).join("; ")}`);
  },
} satisfies ExportedHandler<Env>;

import { createApp } from "./app";
import { withOAuth } from "./auth/oauth";
import type { Env } from "./config";
import { HANDLERS, SCHEDULE } from "./jobs";
import { consumeWork } from "./queue/consume";
import { consumeDeadLetters } from "./queue/consume-dead-letters";
import { runScheduled } from "./queue/schedule";
import { createDeps } from "./deps";
import { escapedError } from "./http/errors";
import { withSecurityHeaders } from "./http/headers";
import { beginRequest, endRequest } from "./observe/request";
import { DEAD_LETTER_QUEUE } from "./queue/units";

export { MindJobObject } from "./portability/job-object";
export { ModelLimiterObject } from "./llm/model-limiter";
export { RateLimiterObject } from "./limits/rate-limiter";
export { SessionObject } from "./sessions/session-object";
export { TelegramChatObject } from "./telegram/chat-object";

// OAuth sits in front of the app: it checks tokens on /mcp and serves its own endpoints.
const worker = withOAuth(createApp());

export default {
  async fetch(incoming, env, ctx) {
    const { request, observation } = beginRequest(incoming);
    let response: Response;
    try {
      response = await worker.fetch(request, env, ctx);
    } catch (err) {
      response = escapedError(request, err);
    }
    return endRequest(observation, withSecurityHeaders(response));
  },
  async scheduled(controller, env) {
    // A cron run only enqueues what is due; queue() below does the work.
    await runScheduled((wrap) => createDeps(env, { wrap }), SCHEDULE, controller.cron);
  },
  async queue(batch, env) {
    if (batch.queue === DEAD_LETTER_QUEUE) await consumeDeadLetters(createDeps(env), batch);
    else await consumeWork((wrap) => createDeps(env, { wrap }), HANDLERS, batch);
  },
} satisfies ExportedHandler<Env>;

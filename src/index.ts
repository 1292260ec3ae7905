import { createApp } from "./app";
import { OAuthGrantObject as OAuthGrant } from "./auth/grant-object";
import { withOAuth } from "./auth/oauth";
import { createDeps } from "./deps";
import { escapedError } from "./http/errors";
import { withSecurityHeaders } from "./http/headers";
import { HANDLERS, SCHEDULE } from "./jobs";
import { guardObject, inInvocation } from "./limits/invocation-guard";
import { RateLimiterObject as RateLimiter } from "./limits/rate-limiter";
import { ModelLimiterObject as ModelLimiter } from "./llm/model-limiter";
import { withLogFields } from "./observe/log";
import { loggedObject } from "./observe/objects";
import { beginRequest, endRequest } from "./observe/request";
import { MindOperationsObject as MindOperations } from "./portability/operations-object";
import { consumeWork } from "./queue/consume";
import { consumeDeadLetters } from "./queue/consume-dead-letters";
import { runScheduled } from "./queue/schedule";
import { DEAD_LETTER_QUEUE } from "./queue/units";
import { SessionObject as Sessions } from "./sessions/session-object";
import { TelegramChatObject as TelegramChats } from "./telegram/chat-object";

// Each request and alarm of an object is an invocation of its own (counted under the tests'
// INVOCATION_GUARD), whose log lines carry one request id.
export const MindOperationsObject = guardObject(loggedObject(MindOperations), "MindOperationsObject");
export const ModelLimiterObject = guardObject(loggedObject(ModelLimiter), "ModelLimiterObject");
export const OAuthGrantObject = guardObject(loggedObject(OAuthGrant), "OAuthGrantObject");
export const RateLimiterObject = guardObject(loggedObject(RateLimiter), "RateLimiterObject");
export const SessionObject = guardObject(loggedObject(Sessions), "SessionObject");
export const TelegramChatObject = guardObject(loggedObject(TelegramChats), "TelegramChatObject");

// OAuth sits in front of the app: it checks tokens on /mcp and serves its own endpoints.
const worker = withOAuth(createApp());

export default {
  fetch: (incoming, env, ctx) =>
    inInvocation("fetch", env, async (env) => {
      const { request, observation } = beginRequest(incoming);
      // Every line the request writes carries its id, wherever in the code it is written.
      return withLogFields({ request_id: observation.requestId }, async () => {
        let response: Response;
        try {
          response = await worker.fetch(request, env, ctx);
        } catch (err) {
          response = escapedError(request, err);
        }
        return endRequest(observation, withSecurityHeaders(response));
      });
    }),
  scheduled: (controller, env) =>
    // A cron run only enqueues what is due; queue() below does the work.
    inInvocation(`scheduled ${controller.cron}`, env, async (env) => {
      await runScheduled((wrap) => createDeps(env, { wrap }), SCHEDULE, controller.cron);
    }),
  queue: (batch, env) =>
    inInvocation(`queue ${batch.queue}`, env, async (env) => {
      if (batch.queue === DEAD_LETTER_QUEUE) await consumeDeadLetters(createDeps(env), batch);
      else await consumeWork((wrap) => createDeps(env, { wrap }), HANDLERS, batch);
    }),
} satisfies ExportedHandler<Env>;

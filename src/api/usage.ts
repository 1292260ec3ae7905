import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { bearerSecurity } from "../http/router";
import { tokensUsedToday, usageSince, utcDay } from "../llm/ledger";
import { tokenAccountOf } from "../tenancy/mind-context";
import { errorResponses, jsonContent } from "./schemas";

const UsageSchema = z
  .object({
    mind_id: z.string(),
    day: z.string().openapi({ description: "Today, UTC: the day the budget counts" }),
    daily_token_budget: z.number().nullable(),
    used_today: z.number(),
    days: z.array(
      z.object({
        day: z.string(),
        purpose: z.string(),
        calls: z.number(),
        failures: z.number(),
        input_tokens: z.number(),
        output_tokens: z.number(),
      }),
    ),
  })
  .openapi("ModelUsage");

export const usageRoutes = createRouter();

usageRoutes.openapi(
  createRoute({
    method: "get", path: "/", tags: ["minds"], security: bearerSecurity,
    summary: "The mind's model calls and tokens per day and purpose, and today's budget",
    request: { query: z.object({ days: z.coerce.number().int().min(1).max(400).default(30) }) },
    responses: {
      200: jsonContent(UsageSchema, "The ledger, newest day first"),
      400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404],
    },
  }),
  async (c) => {
    const deps = c.var.mindContext;
    const { mind } = deps;
    const account = tokenAccountOf(deps);
    const now = deps.clock.now();
    const since = utcDay(new Date(now.getTime() - (c.req.valid("query").days - 1) * 86_400_000));
    const rows = await usageSince(deps, account, since);
    return c.json(
      {
        mind_id: mind.id,
        day: utcDay(now),
        daily_token_budget: account.dailyBudget,
        used_today: await tokensUsedToday(deps, account),
        days: rows.map((r) => ({
          day: r.day,
          purpose: r.purpose,
          calls: r.calls,
          failures: r.failures,
          input_tokens: r.inputTokens,
          output_tokens: r.outputTokens,
        })),
      },
      200,
    );
  },
);

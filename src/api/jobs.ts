import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { everyShard } from "../db/client";
import { AppError } from "../errors";
import { bearerSecurity } from "../http/router";
import { listDeadLetters, redriveDeadLetters } from "../queue/dead-letters";
import { JOB_NAMES, listJobRuns } from "../queue/job-runs";
import { queueBacklog } from "../queue/marks";
import { UNIT_KINDS } from "../queue/units";
import { errorResponses, jsonBody, jsonContent, pageQuery } from "./schemas";

const JobRunSchema = z
  .object({
    id: z.string(),
    job: z.string(),
    cron: z.string().nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable().openapi({ description: "null while the job runs (or if it was stopped)" }),
    counts: z.record(z.string(), z.unknown()),
    error: z.string().nullable(),
  })
  .openapi("JobRun");

const DeadLetterSchema = z
  .object({
    unit: z.string().openapi({ description: "The unit of work: its kind and ids, e.g. `consolidate mind_… default`" }),
    shard: z.string(),
    kind: z.string(),
    mind_id: z.string().nullable(),
    namespace: z.string().nullable(),
    error_code: z.string().openapi({ description: "The code of the last failure (model_failed, internal, …); never its text" }),
    attempts: z.number(),
    deaths: z.number().openapi({ description: "Times the unit landed here since it was last sent back" }),
    first_at: z.string(),
    last_at: z.string(),
  })
  .openapi("DeadLetter");

const JobsSchema = z.object({
  runs: z.array(JobRunSchema),
  queue: z
    .object({ queued: z.number(), retrying: z.number(), oldest_queued_at: z.string().nullable() })
    .openapi({ description: "Units enqueued and not yet done, on every database; `retrying`: their message failed at least once" }),
  dead_letters: z.object({
    total: z.number(),
    by_code: z.array(z.object({ kind: z.string(), error_code: z.string(), count: z.number() })),
    letters: z.array(DeadLetterSchema).openapi({ description: "The newest, at most `limit`" }),
  }),
});

export const jobRoutes = createRouter();

jobRoutes.openapi(
  createRoute({
    method: "get", path: "/", tags: ["jobs"], security: bearerSecurity,
    summary: "Background work: recent cron runs with what they enqueued, the queue's backlog, and dead letters (ADMIN_TOKEN)",
    request: { query: z.object({ job: z.enum(JOB_NAMES).optional(), limit: pageQuery.limit }) },
    responses: { 200: jsonContent(JobsSchema, "Runs newest first"), 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403] },
  }),
  async (c) => {
    const deps = c.var.deps;
    const query = c.req.valid("query");
    const [runs, queue, deadLetters] = await Promise.all([
      listJobRuns(deps, query),
      queueBacklog(everyShard(deps).map((s) => s.db), deps.clock.now()),
      listDeadLetters(deps, query.limit),
    ]);
    return c.json({ runs, queue, dead_letters: deadLetters }, 200);
  },
);

jobRoutes.openapi(
  createRoute({
    method: "post", path: "/dead-letters/redrive", tags: ["jobs"], security: bearerSecurity,
    summary: "Send dead letters back to the work queue, the oldest first (ADMIN_TOKEN)",
    request: {
      body: jsonBody(
        z.object({ kind: z.enum(UNIT_KINDS).optional(), limit: z.number().int().min(1).max(100).default(100) }).strict(),
      ),
    },
    responses: { 200: jsonContent(z.object({ redriven: z.number() }), "How many went back"), 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403] },
  }),
  async (c) => {
    const queue = c.env.JOBS;
    if (!queue) throw new AppError("internal", "the JOBS queue binding is missing");
    const redriven = await redriveDeadLetters(c.var.deps, queue, c.req.valid("json"));
    return c.json({ redriven }, 200);
  },
);

import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../auth/middleware";
import { JOB_NAMES, listJobRuns } from "../db/job-runs";
import { bearerSecurity, createRouter } from "../http/router";
import { errorResponses, jsonContent, pageQuery } from "./schemas";

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

export const jobRoutes = createRouter();
jobRoutes.use("/jobs", requireAdmin);

jobRoutes.openapi(
  createRoute({
    method: "get", path: "/jobs", tags: ["jobs"], security: bearerSecurity,
    summary: "Recent background job runs with their counts (ADMIN_TOKEN)",
    request: { query: z.object({ job: z.enum(JOB_NAMES).optional(), limit: pageQuery.limit }) },
    responses: { 200: jsonContent(z.object({ runs: z.array(JobRunSchema) }), "Newest first"), 400: errorResponses[400], 401: errorResponses[401] },
  }),
  async (c) => c.json({ runs: await listJobRuns(c.var.deps, c.req.valid("query")) }, 200),
);

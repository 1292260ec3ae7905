import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../auth/middleware";
import { listShards, moveMind } from "../minds/move";
import { bearerSecurity, createRouter } from "../http/router";
import { errorResponses, ErrorSchema, jsonBody, jsonContent } from "./schemas";

const ShardSchema = z
  .object({
    name: z.string().openapi({ description: "The D1 binding: DB (the directory, also the first shard), SHARD_1, …" }),
    minds: z.number().int(),
    incoming: z.number().int().openapi({ description: "Minds being copied to it now" }),
  })
  .openapi("Shard");

const counts = z.record(z.string(), z.number().int());

const MoveSchema = z
  .object({ mind_id: z.string(), from: z.string(), to: z.string(), copied: counts, erased: counts })
  .openapi("MindMove");

export const shardRoutes = createRouter();
shardRoutes.use("/shards", requireAdmin);
shardRoutes.use("/shards/*", requireAdmin);

shardRoutes.openapi(
  createRoute({
    method: "get", path: "/shards", tags: ["shards"], security: bearerSecurity,
    summary: "The databases minds live on, with how many each holds (ADMIN_TOKEN)",
    responses: { 200: jsonContent(z.object({ shards: z.array(ShardSchema) }), "DB first"), 401: errorResponses[401] },
  }),
  async (c) => c.json({ shards: await listShards(c.var.deps) }, 200),
);

shardRoutes.openapi(
  createRoute({
    method: "post", path: "/shards/{name}/minds", tags: ["shards"], security: bearerSecurity,
    summary: "Move a mind to this shard (ADMIN_TOKEN): copy, verify counts, switch, erase the old copy",
    description:
      "While the mind moves, writes to it answer 503 mind_moving with Retry-After; reads go on from the old copy. A failure undoes the move (or, past the switch, finishes it); calling again resumes one that could not be undone.",
    request: {
      params: z.object({ name: z.string().regex(/^(DB|SHARD_[1-9][0-9]*)$/, "a shard is DB or SHARD_<n>") }),
      body: jsonBody(z.strictObject({ mind_id: z.string().min(1).max(100) })),
    },
    responses: {
      200: jsonContent(MoveSchema, "The mind lives on this shard now"),
      400: errorResponses[400], 401: errorResponses[401], 404: errorResponses[404],
      409: { description: "The mind moves elsewhere, or the copy differed (the move was undone)", content: { "application/json": { schema: ErrorSchema } } },
    },
  }),
  async (c) => c.json(await moveMind(c.var.deps, c.req.valid("json").mind_id, c.req.valid("param").name), 200),
);

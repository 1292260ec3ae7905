import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { notFound } from "../errors";
import { bearerSecurity } from "../http/router";
import { startOperation } from "../portability/mind-operations";
import { abandonMove, listShards, moveProgress, startMove } from "../portability/move/move";
import { ErrorSchema, errorResponses, jsonBody, jsonContent } from "./schemas";

const ShardSchema = z
  .object({
    name: z.string().openapi({ description: "The D1 binding: DB (the directory, also the first shard), SHARD_1, …" }),
    minds: z.number().int(),
    incoming: z.number().int().openapi({ description: "Minds being copied to it now" }),
  })
  .openapi("Shard");

const counts = z.record(z.string(), z.number().int());

const MoveSchema = z
  .object({
    mind_id: z.string(),
    from: z.string(),
    to: z.string(),
    state: z.enum(["freezing", "preparing", "copying", "switching", "switched", "erasing", "undoing", "done", "abandoned"]).openapi({
      description:
        "freezing → preparing → copying → switching → switched → erasing → done while it runs (switched: the old copy stays closed to writes for the 10 s a stale directory entry may still send a request there); undoing → abandoned when given up before the switch",
    }),
    error: z.string().nullable().openapi({ description: "The last failure of a step (it is retried), or why the move was abandoned" }),
    attempts: z.number().int().openapi({ description: "Failed steps in a row" }),
    rows: z.object({ from: counts, to: counts }).openapi({ description: "The mind's rows per table on each side: the target fills, then the source empties" }),
    started_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("MindMove");

const conflictResponse = { description: "The mind moves elsewhere, or the move is past the point where it can be abandoned", content: { "application/json": { schema: ErrorSchema } } };
const mindParam = z.object({ mind_id: z.string().min(1).max(100) });

export const shardRoutes = createRouter();

shardRoutes.openapi(
  createRoute({
    method: "get", path: "/", tags: ["shards"], security: bearerSecurity,
    summary: "The databases minds live on, with how many each holds (ADMIN_TOKEN)",
    responses: { 200: jsonContent(z.object({ shards: z.array(ShardSchema) }), "DB first"), 401: errorResponses[401], 403: errorResponses[403] },
  }),
  async (c) => c.json({ shards: await listShards(c.var.deps) }, 200),
);

shardRoutes.openapi(
  createRoute({
    method: "post", path: "/{name}/minds", tags: ["shards"], security: bearerSecurity,
    summary: "Move a mind to this shard in the background (ADMIN_TOKEN): copy, verify counts, switch, erase the old copy",
    description:
      "Answers at once with the move's progress (GET /shards/moves/{mind_id} follows it). While the mind moves, writes to it answer 503 mind_moving with Retry-After; reads go on from the old copy. A failed step is retried from where it stopped. Posting again for a move under way answers its progress and wakes it.",
    request: {
      params: z.object({ name: z.string().regex(/^(DB|SHARD_[1-9][0-9]*)$/, "a shard is DB or SHARD_<n>") }),
      body: jsonBody(z.strictObject({ mind_id: z.string().min(1).max(100) })),
    },
    responses: {
      200: jsonContent(MoveSchema, "The mind is already on this shard"),
      202: jsonContent(MoveSchema, "The move runs"),
      400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404], 409: conflictResponse,
    },
  }),
  async (c) => {
    const mindId = c.req.valid("json").mind_id;
    const progress = await startMove(c.var.deps, mindId, c.req.valid("param").name);
    if (progress.state === "done") return c.json(progress, 200);
    await startOperation(c.var.deps, { kind: "move", mindId });
    return c.json(progress, 202);
  },
);

shardRoutes.openapi(
  createRoute({
    method: "get", path: "/moves/{mind_id}", tags: ["shards"], security: bearerSecurity,
    summary: "Where the mind's latest move stands (ADMIN_TOKEN)",
    request: { params: mindParam },
    responses: { 200: jsonContent(MoveSchema, "The move, running or finished"), 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404] },
  }),
  async (c) => {
    const progress = await moveProgress(c.var.deps, c.req.valid("param").mind_id);
    if (!progress) throw notFound("move");
    return c.json(progress, 200);
  },
);

shardRoutes.openapi(
  createRoute({
    method: "delete", path: "/moves/{mind_id}", tags: ["shards"], security: bearerSecurity,
    summary: "Abandon a move before its switch (ADMIN_TOKEN): the partial copy is erased, the mind takes writes where it was",
    request: { params: mindParam },
    responses: { 202: jsonContent(MoveSchema, "Being undone"), 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404], 409: conflictResponse },
  }),
  async (c) => {
    const mindId = c.req.valid("param").mind_id;
    const progress = await abandonMove(c.var.deps, mindId);
    await startOperation(c.var.deps, { kind: "move", mindId });
    return c.json(progress, 202);
  },
);

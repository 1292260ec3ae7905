import { z } from "@hono/zod-openapi";
import { type CountLimit, LIST_LIMIT } from "../memory/limits";

/** Responses shared by routes. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      requestId: z.string().openapi({ description: "The request's id, as its X-Request-Id header and the operator's logs carry it" }),
    }),
  })
  .openapi("Error");

export const errorResponses = {
  400: { description: "Invalid input", content: { "application/json": { schema: ErrorSchema } } },
  401: { description: "Missing or invalid credentials", content: { "application/json": { schema: ErrorSchema } } },
  403: { description: "Not allowed for this caller", content: { "application/json": { schema: ErrorSchema } } },
  404: { description: "Not found (or not yours)", content: { "application/json": { schema: ErrorSchema } } },
  429: { description: "A rate limit or quota reached (Retry-After says when to retry)", content: { "application/json": { schema: ErrorSchema } } },
} as const;

/** The refusals every authenticated route may answer. */
export const guardedResponses = {
  400: errorResponses[400],
  401: errorResponses[401],
  403: errorResponses[403],
  404: errorResponses[404],
} as const;

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** `?limit=` within a count limit of the domain, its default filled in. */
export const countQuery = (limit: CountLimit) => z.coerce.number().int().min(1).max(limit.max).default(limit.default);

/** `?limit=&offset=` with bounds. */
export const pageQuery = {
  limit: countQuery(LIST_LIMIT),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
};

export const AgentQuery = z.string().optional().openapi({ description: "Agent namespace (default: all for reads, `default` for writes)" });

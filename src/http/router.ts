import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { invalid } from "../errors";
import { describeZodError } from "./errors";

/** A router whose validation failures become the one 400 error shape. */
export function createValidatingRouter<E extends Env>() {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw invalid(describeZodError(result.error));
    },
  });
}

export const bearerSecurity = [{ bearer: [] }];

import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { invalid } from "../errors";
import { describeZodError } from "./errors";

/** A router whose validation failures become the one 400 error shape. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw invalid(describeZodError(result.error));
    },
  });
}

export const bearerSecurity = [{ bearer: [] }];

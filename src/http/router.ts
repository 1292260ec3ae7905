import { OpenAPIHono } from "@hono/zod-openapi";
import type { Env } from "hono";
import { TrieRouter } from "hono/router/trie-router";
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

/**
 * The methods that serve a path, read from an app's routes (`app.routes`; `app.use` middleware,
 * method ALL, left out) the first time it is asked, when every route is registered. GET serves HEAD too.
 */
export function methodsServing(routes: () => readonly { method: string; path: string }[]): (path: string) => string[] {
  let router: TrieRouter<string> | null = null;
  return (path) => {
    if (router === null) {
      const built = new TrieRouter<string>();
      for (const route of routes()) if (route.method !== "ALL") built.add("ALL", route.path, route.method);
      router = built;
    }
    const methods = new Set(router.match("ALL", path)[0].map(([method]) => method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}

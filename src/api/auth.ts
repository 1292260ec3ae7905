import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { issueAccountToken } from "../auth/jwt";
import { checkAdminToken } from "../auth/middleware";
import { readAuthConfig } from "../config";
import { ensureAccount } from "../tenancy/minds";
import { errorResponses, jsonBody, jsonContent } from "./schemas";

const TokenRequest = z.strictObject({
  account: z.string().trim().min(1).max(100).openapi({ example: "alice" }),
});

const TokenResponse = z
  .object({ token: z.string(), account_id: z.string(), expires_in: z.number() })
  .openapi("AccountToken");

export const authRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/token",
    summary: "Issue a human's JWT (bootstrap with ADMIN_TOKEN); creates the account if missing",
    tags: ["auth"],
    security: [{ bearer: [] }],
    request: { body: jsonBody(TokenRequest) },
    responses: {
      200: jsonContent(TokenResponse, "A token for the account"),
      400: errorResponses[400],
      401: errorResponses[401],
      403: errorResponses[403],
      429: errorResponses[429],
    },
  }),
  async (c) => {
    const config = readAuthConfig(c.env);
    await checkAdminToken(c);
    const { account } = c.req.valid("json");
    const deps = c.var.deps;
    const { id } = await ensureAccount(deps, account);
    const token = await issueAccountToken(config, id, deps.clock.now());
    return c.json({ token, account_id: id, expires_in: config.tokenTtlSeconds }, 200);
  },
);

import { exports } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { OAUTH_MAX_BODY_BYTES } from "../../src/auth/oauth";
import { type AppError, mindMoving, unauthorized } from "../../src/errors";
import { errorResponse, handleError } from "../../src/http/errors";
import { RateLimited } from "../../src/limits/rate-limits";

const fetchWorker = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`https://edgemind.test${path}`, init));

/** Status, Retry-After and body of an answer, to compare two answers by. */
async function answerOf(response: Response) {
  return { status: response.status, retryAfter: response.headers.get("Retry-After"), body: await response.json() };
}

/** What the REST routes answer when a handler throws this failure. */
function thrownInRoute(err: AppError, request: Request): Promise<Response> | Response {
  const app = new Hono();
  app.onError(handleError);
  app.get("/", () => {
    throw err;
  });
  return app.request(request);
}

describe("errors of the OAuth layer", () => {
  it("an OAuth endpoint refuses an oversized request in the protocol's body, never cached", async () => {
    const form = `grant_type=authorization_code&code=${"x".repeat(OAUTH_MAX_BODY_BYTES)}`;
    const res = await fetchWorker("/oauth/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: form });
    expect(res.status).toBe(413);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(await res.json()).toEqual({ error: "invalid_request", error_description: `the request body is larger than ${OAUTH_MAX_BODY_BYTES} bytes` });
  });

  it("/mcp refuses a missing or unknown token in edgemind's error body, beside its challenge", async () => {
    const init = { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" };
    const missing = await fetchWorker("/mcp", init);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("WWW-Authenticate")).toMatch(/^Bearer /);
    expect(await missing.json()).toEqual({ error: { code: "unauthorized", message: expect.stringMatching(/^\/mcp needs Authorization: Bearer/), requestId: missing.headers.get("X-Request-Id") } });
    const unknown = await fetchWorker("/mcp", { ...init, headers: { ...init.headers, Authorization: "Bearer not-a-token" } });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: { code: "unauthorized", message: expect.stringMatching(/^\/mcp needs a mind key or an OAuth access token: /), requestId: unknown.headers.get("X-Request-Id") } });
  });

  it("a failure answered outside the router gets the status, body and Retry-After a route gives it", async () => {
    const request = new Request("https://edgemind.test/");
    for (const err of [new RateLimited("writes per key (RATE_LIMIT_WRITES_PER_KEY)", 42), mindMoving(), unauthorized()]) {
      expect(await answerOf(errorResponse(err, request)), err.code).toEqual(await answerOf(await thrownInRoute(err, request)));
    }
    expect((await answerOf(errorResponse(new RateLimited("too many", 42), request))).retryAfter).toBe("42");
  });
});

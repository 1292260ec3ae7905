import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { configurationProblems } from "../../src/config";
import { AppError, appErrorOf, NotConfigured, notConfigured } from "../../src/errors";
import worker from "../../src/index";
import { ADMIN_TOKEN, call, newKey, newTenant } from "../helpers";

/** One request to the Worker deployed with `settings` changed; the answer's status and JSON body. */
async function callWith(
  settings: Partial<Record<keyof Env, string | undefined>>,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body: unknown = { update_id: 1 },
) {
  const request: Request<unknown, IncomingRequestCfProperties> = new Request(`https://edgemind.test${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    body: method === "GET" || method === "HEAD" ? undefined : JSON.stringify(body),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, { ...env, ...settings } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
}

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const webhookSecret = { "X-Telegram-Bot-Api-Secret-Token": env.TELEGRAM_WEBHOOK_SECRET ?? "" };

describe("a missing or invalid setting answers 503 not_configured naming it, never a bare 500", () => {
  it("the bot's webhook and setup without TELEGRAM_WEBHOOK_SECRET", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [path, headers] of [["/telegram/webhook", webhookSecret], ["/telegram/setup", admin]] as const) {
      const res = await callWith({ TELEGRAM_WEBHOOK_SECRET: undefined }, "POST", path, headers);
      expect(res.status, path).toBe(503);
      expect(res.body.error.code).toBe("not_configured");
      expect(res.body.error.message).toMatch(/^TELEGRAM_WEBHOOK_SECRET must be set with TELEGRAM_BOT_TOKEN: 16-256 characters/);
    }
  });

  it("the bot's webhook and setup without TELEGRAM_BOT_USERNAME (or TELEGRAM_BOT_INFO)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const [path, headers] of [["/telegram/webhook", webhookSecret], ["/telegram/setup", admin]] as const) {
      const res = await callWith({ TELEGRAM_BOT_USERNAME: undefined, TELEGRAM_BOT_INFO: undefined }, "POST", path, headers);
      expect(res.status, path).toBe(503);
      expect(res.body.error).toMatchObject({ code: "not_configured", message: expect.stringMatching(/^TELEGRAM_BOT_USERNAME .* must be set with TELEGRAM_BOT_TOKEN/) });
    }
  });

  it("the bot is off, not misconfigured, without TELEGRAM_BOT_TOKEN", async () => {
    const res = await callWith({ TELEGRAM_BOT_TOKEN: undefined }, "POST", "/telegram/setup", admin);
    expect(res.status).toBe(404);
  });

  it("accounts without ADMIN_TOKEN, and humans' tokens with a short JWT_SECRET", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const noAdmin = await callWith({ ADMIN_TOKEN: undefined }, "POST", "/auth/token", admin, { account: "nobody" });
    expect(noAdmin.status).toBe(503);
    expect(noAdmin.body.error).toEqual({ code: "not_configured", message: "ADMIN_TOKEN must be set to at least 16 characters", requestId: expect.any(String) });
    const shortSecret = await callWith({ JWT_SECRET: "short" }, "GET", "/memory", { Authorization: "Bearer eyJ.a.b" });
    expect(shortSecret.status).toBe(503);
    expect(shortSecret.body.error.message).toBe("JWT_SECRET must be set to at least 16 characters");
  });

  it("recall by meaning with an unknown EMBEDDINGS_PROVIDER", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await callWith({ EMBEDDINGS_PROVIDER: "magic" }, "GET", "/memory", admin);
    expect(res.status).toBe(503);
    expect(res.body.error).toEqual({ code: "not_configured", message: 'EMBEDDINGS_PROVIDER must be one of workers-ai, openai-compatible, none, not "magic"', requestId: expect.any(String) });
  });

  it("a rate limit that is not a number, on the API and on /mcp in front of it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const path of ["/memory", "/mcp"]) {
      const res = await callWith({ RATE_LIMIT_AUTH_FAILURES_PER_IP: "lots" }, "POST", path, { Authorization: "Bearer emk_wrong" });
      expect(res.status, path).toBe(503);
      expect(res.body.error).toEqual({ code: "not_configured", message: 'RATE_LIMIT_AUTH_FAILURES_PER_IP must be a whole number ≥ 0, not "lots"', requestId: expect.any(String) });
    }
  });

  it("is written to the log for the operator", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await callWith({ TELEGRAM_WEBHOOK_SECRET: undefined }, "POST", "/telegram/setup", admin);
    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ event: "not_configured", message: expect.stringContaining("TELEGRAM_WEBHOOK_SECRET") }));
  });
});

describe("one list of configuration checks: /health names every setting at fault, never its value", () => {
  it("answers ok with every setting in place", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, service: "edgemind" });
  });

  it("answers 503 ok: false with the names of every problem at once, from every reader of settings", async () => {
    const settings = {
      LLM_PROVIDER: "openai-compatible",
      LLM_BASE_URL: undefined,
      TELEGRAM_WEBHOOK_SECRET: "short!",
      EMBEDDINGS_PROVIDER: "magic-embeddings",
      RATE_LIMIT_WINDOW_SECONDS: "soon",
    };
    const request = new Request("https://edgemind.test/health");
    const ctx = createExecutionContext();
    const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...settings } as Env, ctx);
    await waitOnExecutionContext(ctx);
    const text = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(text)).toEqual({
      ok: false,
      service: "edgemind",
      not_configured: ["TELEGRAM_WEBHOOK_SECRET", "LLM_BASE_URL", "LLM_MODEL", "RATE_LIMIT_WINDOW_SECONDS", "EMBEDDINGS_PROVIDER"],
    });
    for (const value of ["short!", "magic-embeddings", "soon"]) expect(text).not.toContain(value);
  });

  it("a missing binding and a configured embedder without its index are problems too", () => {
    const problems = configurationProblems({ ...env, JOBS: undefined, EMBEDDINGS_BASE_URL: "http://127.0.0.1:1/v1", EMBEDDINGS_MODEL: "m", VECTORIZE: undefined } as Env);
    expect(problems.map((p) => p.setting)).toEqual(["JOBS", "VECTORIZE"]);
    expect(problems[0]!.message).toBe("the JOBS binding is missing: wrangler.toml declares it");
  });
});

describe("a missing setting raised inside a Durable Object reaches the caller as 503 naming it", () => {
  it("rebuilds an AppError that crossed RPC as a plain Error with its fields", () => {
    const crossed = Object.assign(new Error("LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL"), {
      name: "AppError",
      code: "not_configured",
      problems: [{ setting: "LLM_BASE_URL", message: "LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL" }],
    });
    const rebuilt = appErrorOf(crossed);
    expect(rebuilt).toBeInstanceOf(NotConfigured);
    expect(rebuilt).toMatchObject({ status: 503, message: crossed.message, problems: crossed.problems });
    expect(appErrorOf(Object.assign(new Error("x"), { name: "AppError", code: "no_such_code" }))).toBeNull();
    expect(appErrorOf(new Error("plain"))).toBeNull();
    const own = new AppError("conflict", "taken");
    expect(appErrorOf(own)).toBe(own);
  });

  it("POST /sessions/:id/extract, when the session's object throws not_configured", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const t = await newTenant();
    const key = (await newKey(t.token, t.mind.id)).key;
    const session = await call("POST", "/sessions", { token: key, body: { task_name: "configuration" } });
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(session.json.id));
    // The object's class as the runtime made it: its extract throws for this test only.
    const prototype = await runInDurableObject(stub, (instance) => Object.getPrototypeOf(instance) as { extract: unknown });
    const original = prototype.extract;
    prototype.extract = () => Promise.reject(notConfigured("LLM_BASE_URL", "LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL"));
    try {
      const res = await call("POST", `/sessions/${session.json.id}/extract`, { token: key });
      expect(res.status).toBe(503);
      expect(res.json.error).toMatchObject({ code: "not_configured", message: "LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL" });
    } finally {
      prototype.extract = original;
    }
  });
});

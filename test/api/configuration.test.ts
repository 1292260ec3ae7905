import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { ADMIN_TOKEN } from "../helpers";

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
    body: method === "GET" ? undefined : JSON.stringify(body),
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

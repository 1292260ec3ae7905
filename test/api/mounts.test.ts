import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { MiddlewareHandler } from "hono";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { authenticate, requireAdmin, requireHuman, requireScope } from "../../src/auth/middleware";
import worker from "../../src/index";
import { newKey, newTenant, unique } from "../helpers";

const MIND_SCOPED = ["/memory/*", "/sessions/*", "/chats/*", "/notes/*", "/cold/*", "/usage/*"];

/** The paths a guard is registered for as middleware (for every method) in the app. */
function guardedPaths(guard: MiddlewareHandler): string[] {
  return createApp()
    .routes.filter((route) => route.method === "ALL" && route.handler === guard)
    .map((route) => route.path);
}

/** The keys each write limit was asked about, through stand-ins of the Rate Limiting bindings. */
const counted: string[] = [];
const countingLimit = (name: string) => ({ limit: async ({ key }: { key: string }) => (counted.push(`${name} ${key}`), { success: true }) });

/** A write with a mind key, to a Worker whose write limits count every request they see. */
async function write(key: string, path: string, body: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const vars = { RATE_LIMIT_REQUESTS: "on", WRITES_PER_KEY: countingLimit("key"), WRITES_PER_IP: countingLimit("ip") };
  const request = new Request(`https://edgemind.test${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await worker.fetch(request as Parameters<typeof worker.fetch>[0], { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

describe("REST resources at their prefixes", () => {
  it("register each guard once, for everything under the resource's prefix", () => {
    expect(guardedPaths(authenticate)).toEqual(["/minds/*", ...MIND_SCOPED]);
    expect(guardedPaths(requireScope)).toEqual(MIND_SCOPED);
    expect(guardedPaths(requireHuman)).toEqual(["/minds/*"]);
    expect(guardedPaths(requireAdmin)).toEqual(["/jobs/*", "/shards/*"]);
  });

  it("authenticate and count a write once, on a resource's root and below it", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const opened = await write(key, "/sessions", { task_name: unique("task") });
    expect(opened.status).toBe(201);
    const { id } = (await opened.json()) as { id: string };
    const message = { role: "user", content: "Hello" };
    for (const [path, body] of [[`/sessions/${id}/messages`, message], ["/notes", { text: "Prefers green tea" }]] as const) {
      counted.length = 0;
      expect((await write(key, path, body)).status, path).toBe(201);
      // Once per limit: the key's and the address's, whatever the prefix's guards.
      expect(counted.filter((c) => c.startsWith("key ")), path).toHaveLength(1);
      expect(counted.filter((c) => c.startsWith("ip ")), path).toHaveLength(1);
    }
  });
});

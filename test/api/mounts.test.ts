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

/** A write with a mind key, to a Worker that allows each key two writes per window. */
async function write(key: string, path: string, body: unknown): Promise<Response> {
  const ctx = createExecutionContext();
  const vars = { RATE_LIMIT_WRITES_PER_KEY: "2", RATE_LIMIT_WINDOW_SECONDS: "100000000" };
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
    expect((await write(key, `/sessions/${id}/messages`, message)).status).toBe(201);
    expect((await write(key, `/sessions/${id}/messages`, message)).status).toBe(429);
    const other = await newKey(t.token, t.mind.id);
    for (const text of ["Prefers green tea", "Drinks it at noon"]) expect((await write(other.key, "/notes", { text })).status).toBe(201);
    expect((await write(other.key, "/notes", { text: "Once more" })).status).toBe(429);
  });
});

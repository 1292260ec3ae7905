import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { COLD_FORM_MAX_BODY_BYTES, COLD_JSON_MAX_BODY_BYTES, createApp, MAX_BODY_BYTES } from "../../src/app";
import { REGISTER_PATH } from "../../src/auth/oauth";
import { ADMIN_TOKEN, call, newKey, newMind, newTenant, store } from "../helpers";

const fetchWorker = (url: string, init?: RequestInit) => exports.default.fetch(new Request(url, init));

/** A body sent in chunks (no Content-Length) that counts how much of it was read. */
function chunkedBody(bytes: number, chunk = 16 * 1024) {
  const state = { sent: 0, done: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.sent >= bytes) {
        state.done = true;
        controller.close();
        return;
      }
      const size = Math.min(chunk, bytes - state.sent);
      state.sent += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { stream, state };
}

describe("any Host header gets a 4xx or a correct answer, never a 5xx (PUBLIC_URL unset)", () => {
  it("answers every route for a host that is not loopback, over plain HTTP or HTTPS", async () => {
    for (const origin of ["http://evil.example", "http://evil.example:8443", "https://evil.example", "http://192.0.2.1:8787"]) {
      const health = await fetchWorker(`${origin}/health`);
      expect(health.status, `${origin} ${await health.clone().text()}`).toBe(200);
      const mcp = await fetchWorker(`${origin}/mcp`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      expect(mcp.status, origin).toBe(401);
      for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/ui/login", "/nothing-here"]) {
        expect((await fetchWorker(`${origin}${path}`)).status, `${origin}${path}`).toBeLessThan(500);
      }
    }
    // Tokens are bound to an HTTPS origin (plain HTTP only on loopback, as `npm run dev` serves it).
    const https = await fetchWorker("https://evil.example/.well-known/oauth-protected-resource/mcp");
    expect(((await https.json()) as { resource: string }).resource).toBe("https://evil.example/mcp");
    const local = await fetchWorker("http://127.0.0.1:8787/.well-known/oauth-protected-resource/mcp");
    expect(((await local.json()) as { resource: string }).resource).toBe("http://127.0.0.1:8787/mcp");
  });
});

describe("answers are never sniffed", () => {
  it("the 404 echoes the path as JSON, shortened, with nosniff; so does every other answer", async () => {
    const res = await call("GET", `/%3Cscript%3Ealert(1)%3C/script%3E${"x".repeat(500)}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.json.error.message.length).toBeLessThan(260);
    for (const [method, path] of [["GET", "/health"], ["GET", "/memory"], ["POST", "/oauth/token"], ["GET", "/.well-known/oauth-authorization-server"], ["GET", "/ui/login"]] as const) {
      const answer = await call(method, path);
      expect(answer.headers.get("X-Content-Type-Options"), `${method} ${path}`).toBe("nosniff");
    }
  });
});

describe("a request the route cannot take says what it takes", () => {
  it("a JSON route given no Content-Type, or another one, answers 415 naming application/json; nothing is written", async () => {
    const t = await newTenant();
    const key = (await newKey(t.token, t.mind.id)).key;
    const body = JSON.stringify({ category: "fact", key: "media_type", content: "sent as text" });
    for (const headers of [{}, { "Content-Type": "text/plain" }] as Record<string, string>[]) {
      const res = await fetchWorker("https://edgemind.test/memory", { method: "POST", headers: { Authorization: `Bearer ${key}`, ...headers }, body });
      expect(res.status).toBe(415);
      expect((await res.json()) as object).toMatchObject({
        error: { code: "unsupported_media_type", message: "this route takes a JSON body: send it with Content-Type: application/json" },
      });
    }
    expect((await call("GET", "/memory/search?q=media", { token: key })).json.results).toEqual([]);
  });

  it("a known path with a method it does not serve answers 405 with Allow; an unknown path 404", async () => {
    const t = await newTenant();
    const key = (await newKey(t.token, t.mind.id)).key;
    for (const [method, path, allowed] of [["PATCH", "/memory", "POST, GET, HEAD"], ["DELETE", "/cold", "GET, PUT, HEAD"], ["PUT", "/health", "GET, HEAD"], ["POST", "/openapi.json", "GET, HEAD"]] as const) {
      const res = await call(method, path, { token: key });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("Allow"), `${method} ${path}`).toBe(allowed);
      expect(res.json.error).toMatchObject({ code: "method_not_allowed", message: `${method} is not allowed on ${path}: use ${allowed}` });
    }
    expect((await call("GET", "/no-such-path", { token: key })).status).toBe(404);
  });

  it("the admin token on a mind's route is refused with 403 saying it is for the operator's routes, and counts as no failure", async () => {
    const t = await newTenant();
    for (const mind of [undefined, t.mind.id]) {
      const res = await call("GET", "/memory", { token: ADMIN_TOKEN, mind });
      expect(res.status).toBe(403);
      expect(res.json.error.message).toBe(
        "the admin token is for the operator's routes (POST /auth/token, /jobs, /shards, /telegram/setup): here send a mind key (emk_…) or a person's token from POST /auth/token",
      );
    }
    expect((await call("GET", "/minds", { token: ADMIN_TOKEN })).status).toBe(403);
    expect((await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: { account: "operator-still-works" } })).status).toBe(200);
  });
});

describe("the routes that write a whole cold document take its body, and no more", () => {
  it("PUT /cold, /mcp and /ui/cold answer 413 one byte past their own bound, and the document is as it was", async () => {
    const t = await newTenant();
    const auth = { Authorization: `Bearer ${t.token}`, "X-Mind-Id": t.mind.id };
    const before = (await call("GET", "/cold", { token: t.token, mind: t.mind.id })).json;
    const key = (await newKey(t.token, t.mind.id)).key;
    const over = (bytes: number) => "x".repeat(bytes + 1);
    const refused = [
      await fetchWorker("https://edgemind.test/cold", { method: "PUT", headers: { ...auth, "Content-Type": "application/json" }, body: over(COLD_JSON_MAX_BODY_BYTES) }),
      await fetchWorker("https://edgemind.test/mcp", { method: "POST", headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: over(COLD_JSON_MAX_BODY_BYTES) }),
      await fetchWorker("https://edgemind.test/ui/cold", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: over(COLD_FORM_MAX_BODY_BYTES) }),
    ];
    expect(refused.map((r) => r.status)).toEqual([413, 413, 413]);
    expect((await call("GET", "/cold", { token: t.token, mind: t.mind.id })).json).toEqual(before);
    // Other routes keep the ordinary bound.
    const memory = await fetchWorker("https://edgemind.test/memory", { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: over(MAX_BODY_BYTES) });
    expect(memory.status).toBe(413);
  });
});

describe("a refused body is read to its end before the answer", () => {
  // A connection left with an unread chunked body breaks the next request on it (wrangler dev's
  // proxy then answers that one 503 "Your worker restarted mid-request").
  it("a chunked body over an ordinary route's bound: 413, the rest drained", async () => {
    const t = await newTenant();
    const { stream, state } = chunkedBody(MAX_BODY_BYTES * 3);
    const res = await fetchWorker("https://edgemind.test/memory", {
      method: "POST",
      headers: { Authorization: `Bearer ${t.token}`, "X-Mind-Id": t.mind.id, "Content-Type": "application/json" },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
    expect(state.done).toBe(true);
  });

  it("a chunked import refused before it is read (no credentials): 401, the body drained", async () => {
    const t = await newTenant();
    const { stream, state } = chunkedBody(2 * 1024 * 1024, 64 * 1024);
    const res = await fetchWorker(`https://edgemind.test/minds/${t.mind.id}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: stream });
    expect(res.status).toBe(401);
    expect(state.done).toBe(true);
  });

  it("a chunked import refused after its first megabyte (the mind is not empty): 409, the rest drained", async () => {
    const t = await newTenant();
    await store({ token: t.token, mind: t.mind.id }, { key: "kept", content: "Already here" });
    const { stream, state } = chunkedBody(3 * 1024 * 1024, 64 * 1024);
    const res = await fetchWorker(`https://edgemind.test/minds/${t.mind.id}/import`, {
      method: "POST",
      headers: { Authorization: `Bearer ${t.token}`, "Content-Type": "application/x-ndjson" },
      body: stream,
    });
    expect(res.status).toBe(409);
    expect(state.done).toBe(true);
  });

  // The same with a Content-Length: a route that reads part of such a body and stops (an import
  // refused after its first megabyte) must not leave the rest unread either.
  it("an import with a Content-Length refused after its first megabyte (the mind is not empty): 409, the rest drained", async () => {
    const t = await newTenant();
    await store({ token: t.token, mind: t.mind.id }, { key: "kept", content: "Already here" });
    const size = 3 * 1024 * 1024;
    const { stream, state } = chunkedBody(size, 64 * 1024);
    const res = await fetchWorker(`https://edgemind.test/minds/${t.mind.id}/import`, {
      method: "POST",
      headers: { Authorization: `Bearer ${t.token}`, "Content-Type": "application/x-ndjson", "Content-Length": String(size) },
      body: stream,
    });
    expect(res.status).toBe(409);
    expect(state.done).toBe(true);
  });

  it("a body with a Content-Length over an ordinary route's bound, or refused before it is read: drained", async () => {
    const t = await newTenant();
    for (const [size, token, status] of [
      [MAX_BODY_BYTES * 3, t.token, 413],
      [MAX_BODY_BYTES / 2, "emk_nobody.wrong", 401],
    ] as const) {
      const { stream, state } = chunkedBody(size);
      const res = await fetchWorker("https://edgemind.test/memory", {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "X-Mind-Id": t.mind.id, "Content-Type": "application/json", "Content-Length": String(size) },
        body: stream,
      });
      expect(res.status, String(status)).toBe(status);
      expect(state.done, String(status)).toBe(true);
    }
  });
});

describe("a lone surrogate in JSON text is refused, naming the field, on every front", () => {
  it("REST: 400 naming the field, nothing written; a surrogate pair (an emoji) is text", async () => {
    const t = await newTenant();
    const res = await call("POST", "/memory", { token: t.token, mind: t.mind.id, body: { category: "fact", key: "broken", content: "broken \ud800 text" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^content holds a lone surrogate/);
    expect((await call("GET", "/memory", { token: t.token, mind: t.mind.id })).json.total).toBe(0);
    const emoji = await call("POST", "/memory", { token: t.token, mind: t.mind.id, body: { category: "fact", key: "smile", content: "smiles \ud83d\ude00" } });
    expect(emoji.status).toBe(201);
    expect(emoji.json.content).toBe("smiles 😀");
  });

  it("every route that takes a body, read from the router, and OAuth's registration answer 400 naming the lone surrogate", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    // Acknowledged, never refused (Telegram would deliver a refused update again): test/telegram/webhook.test.ts.
    // A form upload of the web UI: its archive's lines are checked as the API's import checks them.
    const elsewhere = new Set(["POST /telegram/webhook", "POST /ui/import"]);
    const routes = createApp()
      .routes.filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method))
      .map((r) => `${r.method} ${r.path}`);
    const sent = [...new Set([...routes, `POST ${REGISTER_PATH}`])].filter((route) => !elsewhere.has(route));
    expect(sent.length).toBeGreaterThan(40);
    const body = String.raw`{"type":"header","name":"lone \ud800 here","text":"x","content":"x","client_name":"lone \ud800","redirect_uris":["https://client.example/cb"]}`;
    for (const route of sent) {
      const [method, pattern] = route.split(" ") as [string, string];
      // A fresh mind for each: an import only reads its archive into an empty one.
      const mind = pattern.includes("/minds/:id") ? (await newMind(t.token)).id : t.mind.id;
      const path = pattern.replace("/minds/:id", `/minds/${mind}`).replace(/:[a-zA-Z]+/g, "x");
      const token = path === "/mcp" ? key : /^\/(jobs|shards|auth|telegram)\b/.test(path) ? ADMIN_TOKEN : t.token;
      // The import reads its body as the archive's lines (a JSON body must say which peer's file it is).
      const contentType = route === "POST /minds/:id/import" ? "application/x-ndjson" : "application/json";
      const res = await call(method, path, { token, mind, rawBody: body, headers: { "Content-Type": contentType } });
      expect(res.status, `${route}: ${res.text}`).toBe(400);
      expect(res.json?.error?.message ?? res.json?.error_description, route).toMatch(/holds a lone surrogate/);
    }
  });

  it("MCP: save_memory_note with a lone surrogate is refused with 400 naming the argument, no note stored", async () => {
    const t = await newTenant();
    const { key } = await newKey(t.token, t.mind.id);
    const res = await call("POST", "/mcp", {
      token: key,
      headers: { Accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "save_memory_note", arguments: { text: "lone \udc00 here" } } },
    });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/^params\.arguments\.text holds a lone surrogate/);
    expect((await call("GET", "/notes", { token: t.token, mind: t.mind.id })).json.notes).toHaveLength(0);
  });
});

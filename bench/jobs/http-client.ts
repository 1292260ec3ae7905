import { env, exports } from "cloudflare:workers";

/** One request to the Worker through its own fetch handler, as a client sends it. */
export async function request(method: string, path: string, options: { token?: string; mind?: string; body?: unknown; rawBody?: BodyInit } = {}) {
  const headers = new Headers();
  if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
  if (options.mind) headers.set("X-Mind-Id", options.mind);
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("Content-Type", "application/json");
  }
  const response = await exports.default.fetch(new Request(`https://edgemind.bench${path}`, { method, headers, body }));
  const text = await response.text();
  return { status: response.status, text };
}

/** A fresh account and mind created through the API; its JWT and mind id. */
export async function newTenant(name: string): Promise<{ token: string; mind: string }> {
  const token = await request("POST", "/auth/token", { token: env.ADMIN_TOKEN, body: { account: `bench-${name}-${Date.now()}` } });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${token.text}`);
  const jwt = (JSON.parse(token.text) as { token: string }).token;
  const mind = await request("POST", "/minds", { token: jwt, body: { name } });
  if (mind.status !== 201) throw new Error(`mind: ${mind.status} ${mind.text}`);
  return { token: jwt, mind: (JSON.parse(mind.text) as { id: string }).id };
}

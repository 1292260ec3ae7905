import { env, exports } from "cloudflare:workers";

/** The operator's token of the running configuration (vitest.config.ts, or the bench's). */
export const ADMIN_TOKEN = env.ADMIN_TOKEN;

export interface CallOptions {
  token?: string;
  mind?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  // Tests read whatever the route answered; each assertion names the fields it expects.
  json: any;
}

/**
 * A body read as UTF-8, whatever its type: workerd warns on `.text()` of a body it does not take
 * for text, such as an export's NDJSON.
 */
export const bodyText = async (response: Response): Promise<string> => new TextDecoder().decode(await response.arrayBuffer());

/** One request to the Worker, as a client would send it. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
  if (options.mind) headers.set("X-Mind-Id", options.mind);
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers.set("Content-Type", "application/json");
  }
  const response = await exports.default.fetch(new Request(`https://edgemind.test${path}`, { method, headers, body }));
  const text = await bodyText(response);
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

let counter = 0;
/** A name no other test in the file uses. */
export const unique = (base: string) => `${base}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** A fresh account with its JWT. */
export async function newHuman(): Promise<{ token: string; accountId: string }> {
  const res = await call("POST", "/auth/token", { token: ADMIN_TOKEN, body: { account: unique("human") } });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return { token: res.json.token, accountId: res.json.account_id };
}

/** A fresh mind of the given human. */
export async function newMind(token: string, body: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const res = await call("POST", "/minds", { token, body: { name: unique("mind"), ...body } });
  if (res.status !== 201) throw new Error(`mind: ${res.status} ${res.text}`);
  return res.json;
}

/** A new key for a mind, optionally limited to an agent namespace. */
export async function newKey(token: string, mindId: string, agent?: string): Promise<{ id: string; key: string }> {
  const res = await call("POST", `/minds/${mindId}/keys`, { token, body: agent ? { agent } : {} });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
  return res.json;
}

/** A human with one mind: the usual starting point. */
export async function newTenant() {
  const human = await newHuman();
  const mind = await newMind(human.token);
  return { ...human, mind };
}

/** Stores a memory and returns it, failing loudly otherwise. */
export async function store(
  auth: { token: string; mind?: string },
  body: Record<string, unknown>,
  query = "",
): Promise<any> {
  const res = await call("POST", `/memory${query}`, { ...auth, body: { category: "fact", ...body } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`store: ${res.status} ${res.text}`);
  return res.json;
}

/**
 * Follows an import answered 202 until its import ends (the mind's operations object writes it in the
 * background) and answers its last state; any other answer is returned as it is.
 */
export async function followImport(mindId: string, token: string, answer: CallResult, timeoutMs = 120_000): Promise<CallResult> {
  if (answer.status !== 202) return answer;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const archiveImport = await call("GET", `/minds/${mindId}/import/${answer.json.import.id}`, { token });
    if (archiveImport.status !== 200 || ["done", "failed"].includes(archiveImport.json.state) || Date.now() > deadline) return archiveImport;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

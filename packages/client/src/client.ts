import createClient from "openapi-fetch";
import type { paths } from "./generated/api.js";
import { memoryResource } from "./memory.js";
import { mindsResource } from "./minds.js";
import { coldResource, notesResource } from "./notes.js";
import { sessionsResource } from "./sessions.js";
import { type FetchLike, type RetryOptions, Transport } from "./transport.js";
import { webhooksResource } from "./webhooks.js";

export interface EdgemindOptions {
  /** The Worker's origin, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** A mind key (`emk_…`, implies its mind) or a human's JWT (then give `mindId`). */
  key: string;
  /** The mind a human's calls work in (sent as X-Mind-Id). */
  mindId?: string;
  /** How requests are sent (default: the global fetch). */
  fetch?: FetchLike;
  /** Retries of 429 and 503 answers with Retry-After (default 3 tries, waits up to 30 s); `false`: none. */
  retry?: RetryOptions | false;
  /** How a retry's wait is spent (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

/** A client of one edgemind Worker, for one key (and, with a human's token, one mind). */
export function createEdgemind(options: EdgemindOptions) {
  const transport = new Transport({ fetch: options.fetch, retry: options.retry, sleep: options.sleep });
  const headers: Record<string, string> = { Authorization: `Bearer ${options.key}` };
  if (options.mindId) headers["X-Mind-Id"] = options.mindId;
  const api = createClient<paths>({ baseUrl: options.url.replace(/\/+$/, ""), fetch: transport.fetch, headers });
  return {
    memory: memoryResource(api),
    notes: notesResource(api),
    cold: coldResource(api),
    sessions: sessionsResource(api),
    minds: mindsResource(api, options.mindId),
    webhooks: webhooksResource(api, options.mindId),
    /** Every route of the OpenAPI document, typed (openapi-fetch); failures are answered, not thrown. */
    api,
    /** The bookmark the next call in a mind will carry (the last one handed back, for any mind when none is named). */
    bookmark: (mindId?: string) => transport.bookmark(mindId),
  };
}

export type EdgemindClient = ReturnType<typeof createEdgemind>;

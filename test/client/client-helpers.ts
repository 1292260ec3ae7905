import { exports } from "cloudflare:workers";
import { createEdgemind, type EdgemindOptions } from "../../packages/client/src/index";
import { newKey, newTenant } from "../helpers";

export const BASE_URL = "https://edgemind.test";

/** The Worker in the test pool, as the client's fetch. */
export const toWorker = (request: Request) => exports.default.fetch(request);

/** A client of the Worker in the test pool; no waits unless a test supplies them. */
export function clientOf(key: string, options: Partial<EdgemindOptions> = {}) {
  return createEdgemind({ url: BASE_URL, key, fetch: toWorker, ...options });
}

/** A human with a fresh mind and an agent key in it: a client for each. */
export async function tenantClients(options: Partial<EdgemindOptions> = {}) {
  const tenant = await newTenant();
  const { key } = await newKey(tenant.token, tenant.mind.id);
  return {
    tenant,
    key,
    agent: clientOf(key, options),
    human: clientOf(tenant.token, { mindId: tenant.mind.id, ...options }),
  };
}

import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { withOAuth } from "../../src/auth/oauth";
import { manualClock } from "./deps";
import { RoundTrips, recordingD1 } from "./recording-d1";

/**
 * The Worker (with the OAuth layer in front) over a manual clock, each database binding wrapped
 * to note its round trips and the D1 sessions it opens; answers are read whole before they return.
 */
export function roundTripWorker() {
  const trips = new Map<D1Database, RoundTrips>();
  const wrap = (d1: D1Database) => {
    const counted = trips.get(d1) ?? new RoundTrips();
    trips.set(d1, counted);
    return recordingD1(d1, [], counted);
  };
  const worker = withOAuth(createApp({ clock: manualClock(new Date()), wrap }));
  const fetch = async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(request, env, ctx);
    const body = await res.text();
    await waitOnExecutionContext(ctx);
    return new Response(body, res);
  };
  /** The round trips noted on one database binding (DB, SHARD_1, …). */
  const on = (binding: string) => trips.get((env as unknown as Record<string, D1Database>)[binding]!);
  const reset = () => {
    for (const t of trips.values()) t.clear();
  };
  return { fetch, trips, on, reset };
}

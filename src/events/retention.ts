import { sql } from "drizzle-orm";
import { DAY_MS, deleteWhere, inRounds, type RetentionStep } from "../db/prune";

// Events are kept a week: what a webhook was not sent by then (one disabled that long) is not
// sent, and a replay finds the events of the last week. The delivery log keeps itself short
// (the last 100 attempts of each webhook, src/webhooks/record.ts).

/** Days an event is kept after it was written. */
export const EVENTS_KEPT_DAYS = 7;

export const EVENTS_RETENTION_STEP: RetentionStep = {
  name: "events",
  run: (deps, now, o) => {
    const before = new Date(now.getTime() - EVENTS_KEPT_DAYS * DAY_MS).toISOString();
    return inRounds(o, () => deleteWhere(deps, sql`events`, sql`select rowid from events where occurred_at < ${before} limit ${o.batchSize}`));
  },
};

import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { idsAfter, type QueueJob, type UnitOutcome, type UnitSource } from "../queue/handlers";
import { deliverDue } from "../webhooks/deliver";

/**
 * Minds with events due to a webhook (enabled, not waiting out a backoff, not leased): what a
 * write's wake or a failure's delayed message would have delivered, had it not been lost.
 */
const dueDeliveries: UnitSource = {
  page(_shard, after, limit, now) {
    const [mindId] = idsAfter(after);
    const at = now.toISOString();
    const from = mindId === undefined ? sql`` : sql`and w.mind_id > ${mindId}`;
    return sql`select 'deliver ' || w.mind_id as unit from webhooks w join event_streams s on s.mind_id = w.mind_id
      where w.enabled = 1 and w.next_attempt_at <= ${at} and (w.lease_until is null or w.lease_until <= ${at}) and w.cursor < s.last ${from}
      group by w.mind_id order by w.mind_id limit ${limit}`;
  },
};

/** Hourly: the sweep behind the wakes, one message per mind with events due to a webhook. */
export const webhooksJob: QueueJob = { name: "webhooks", sources: [dueDeliveries] };

/** Delivers the mind's due events (src/webhooks/deliver.ts); more due goes round again at once. */
export async function deliverUnit(deps: Deps, unit: { mindId: string }, shard: string): Promise<UnitOutcome> {
  const { more, ...counts } = await deliverDue({ ...deps, shard: deps.shards.db(shard) }, { id: unit.mindId, shard });
  return { status: "done", counts, more };
}

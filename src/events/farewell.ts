import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { events, webhooks } from "../db/schema";

// A mind's erasure tells its webhooks last: its mind.erased event is written when the erasure
// fences the mind (portability/erase.ts), every other event still waiting is dropped, and the
// webhooks themselves go only once each has had it, or FAREWELL_MS after the erasure began.

/** How long an erasure waits for its mind.erased to be delivered before the webhooks go regardless. */
export const FAREWELL_MS = 15 * 60_000;
/** How often the waiting erasure looks again. */
const FAREWELL_CHECK_MS = 30_000;

/** When the erasure should look again, while an enabled webhook has not had the mind's mind.erased; null: it may go on. */
export async function farewellDueAt(db: Db, mindId: string, startedAt: string, now: Date): Promise<number | null> {
  if (now.getTime() - Date.parse(startedAt) >= FAREWELL_MS) return null;
  const waiting = await db
    .select({ n: sql<number>`count(*)` })
    .from(webhooks)
    .where(sql`${webhooks.mindId} = ${mindId} and ${webhooks.enabled} = 1 and exists (select 1 from ${events} e
      where e.mind_id = ${webhooks.mindId} and e.type = 'mind.erased' and e.sequence > ${webhooks.cursor})`);
  return (waiting[0]?.n ?? 0) > 0 ? now.getTime() + FAREWELL_CHECK_MS : null;
}

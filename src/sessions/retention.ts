import { sql } from "drizzle-orm";
import { deleteWhere, inRounds, type RetentionStep } from "../db/prune";
import { resolveSettings } from "../tenancy/settings";

const DEFAULT_HISTORY_CAP = resolveSettings({}).history_cap;

/**
 * Session histories longer than their mind's history_cap (appends trim as they go; this
 * catches a cap lowered later): the oldest messages beyond the cap are deleted.
 */
export const SESSION_RETENTION_STEPS: RetentionStep[] = [
  {
    name: "messages_over_history_cap",
    run: (deps, _now, o) =>
      inRounds(o, () =>
        deleteWhere(
          deps,
          sql`messages`,
          sql`select id from (
                select messages.id as id,
                       row_number() over (partition by messages.session_id order by messages.id desc) as newer,
                       coalesce(json_extract(minds.settings, '$.history_cap'), ${DEFAULT_HISTORY_CAP}) as cap
                from messages join minds on minds.id = messages.mind_id)
              where newer > cap limit ${o.batchSize}`,
        ),
      ),
  },
];

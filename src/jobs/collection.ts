import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { idsAfter, nextUtcDay, type QueueJob, type UnitOutcome } from "../queue/handlers";
import { sessionObject } from "../sessions/objects";

/** The daily collection: every session with non-ephemeral messages after its cursor, one message each. */
export const collectionJob: QueueJob = {
  name: "collection",
  sources: [
    {
      page(_shard, after, limit) {
        const [mindId, sessionId] = idsAfter(after);
        const from = mindId === undefined ? sql`` : sql`and (s.mind_id, s.id) > (${mindId}, ${sessionId})`;
        return sql`select 'extract ' || s.mind_id || ' ' || s.id as unit from sessions s
          where exists (select 1 from messages m where m.session_id = s.id and m.mind_id = s.mind_id
                        and m.ephemeral = 0 and m.id > s.extracted_through_message_id)
          ${from} order by s.mind_id, s.id limit ${limit}`;
      },
    },
  ],
};

/**
 * One session's extraction, through its object (the single writer of its history and cursor):
 * the cursor moves in the batch that writes the notes, so a repeated delivery adds nothing.
 * What one call does not read, the object goes on with from its own alarm.
 */
export async function extractUnit(deps: Deps, unit: { mindId: string; sessionId: string }, shard: string): Promise<UnitOutcome> {
  const result = await sessionObject(deps.sessionObjects, unit.sessionId).extract({ ...unit, shard });
  if (!result.ok) {
    if (result.code === "mind_moving") return { status: "retry", code: result.code };
    // not_found: the session went; quota_exceeded: the notes wait until the mind has room.
    return { status: "done", counts: { [result.code]: 1 } };
  }
  const { extraction } = result;
  switch (extraction.status) {
    case "budget":
      return { status: "wait", until: nextUtcDay(deps.clock.now()), reason: "budget" };
    case "failed":
      return { status: "retry", code: "model_failed" };
    default:
      return { status: "done", counts: { sessions: 1, notes: extraction.notes, messages: extraction.extracted ?? 0 } };
  }
}

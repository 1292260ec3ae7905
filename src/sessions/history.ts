import { and, eq, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { isoNow } from "../clock";
import { messages, sessions } from "../db/schema";
import type { InShard } from "../deps";
import { inScope } from "../memory/filters";
import { toIndexText } from "../memory/normalize";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import type { MindSettings } from "../tenancy/settings";
import { type Message, type NewMessage, type SessionTarget, toMessage } from "./model";

// The write side of a session's history. Only the session object calls these, one at a time.

/** What the mind's search index holds for a message: nothing for ephemeral output, which is never searched. */
export const messageSearchText = (mindId: string, content: string, ephemeral: boolean) => (ephemeral ? "" : toIndexText(mindId, content));

/** The latest non-ephemeral message of the session, before the one being appended. */
const latestSearchable = (target: SessionTarget) =>
  sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${target.sessionId}
    and ${messages.mindId} = ${target.mindId} and ${messages.ephemeral} = 0 order by ${messages.id} desc limit 1)`;

const ephemeralOf = (target: SessionTarget) =>
  and(eq(messages.sessionId, target.sessionId), eq(messages.mindId, target.mindId), eq(messages.ephemeral, true));

export interface AppendWrite {
  message: Message | null;
  cleared: number;
  trimmed: number;
}

/**
 * One D1 batch, with nothing read before it: clear the ephemeral messages (when asked), insert
 * the message, trim the history to `historyCap`, touch the session. Every statement reads the
 * session row, so a session deleted meanwhile, another mind's, or outside the caller's namespace
 * (`agentFilter`, null: any) gets no message (null) and nothing changes. A message that takes the
 * mind past max_bytes (the caller's `settings`) fails the batch (quota_exceeded).
 */
export async function writeAppend(
  deps: InShard,
  target: SessionTarget,
  input: NewMessage,
  options: { clearEphemeral: boolean; historyCap: number; agentFilter: string | null; settings: MindSettings },
): Promise<AppendWrite> {
  const mind = { shard: deps.shard, mind: { id: target.mindId, settings: options.settings } };
  return writeWithinQuota(mind, { bytes: storedBytes(input.content) }, (guard) => batchAppend(deps, target, input, options, guard));
}

async function batchAppend(
  { shard, clock }: Pick<InShard, "shard" | "clock">,
  target: SessionTarget,
  input: NewMessage,
  options: { clearEphemeral: boolean; historyCap: number; agentFilter: string | null },
  guard: BatchItem<"sqlite">,
): Promise<AppendWrite> {
  const now = isoNow(clock);
  const ephemeral = input.ephemeral ?? false;
  const searchContent = messageSearchText(target.mindId, input.content, ephemeral);
  const ofSession = and(eq(sessions.id, target.sessionId), inScope({ mindId: target.mindId, agentFilter: options.agentFilter }, sessions));
  const visible = sql`exists (select 1 from ${sessions} where ${ofSession})`;
  const insert = shard
    .insert(messages)
    .select(
      shard
        .select({
          id: sql<number>`null`.as("id"),
          mindId: sessions.mindId,
          sessionId: sessions.id,
          role: sql<string>`${input.role}`.as("role"),
          content: sql<string>`${input.content}`.as("content"),
          ephemeral: sql<number>`${ephemeral ? 1 : 0}`.as("ephemeral"),
          tool: sql<string | null>`${input.tool ?? null}`.as("tool"),
          createdAt: sql<string>`${now}`.as("created_at"),
          searchContent: sql<string>`${searchContent}`.as("search_content"),
          // Searched beside the message's own words: the message before it (and, below, the one after).
          searchNear: ephemeral
            ? sql<string>`''`.as("search_near")
            : sql<string>`coalesce((select m.search_content from messages m where m.id = ${latestSearchable(target)}), '')`.as("search_near"),
        })
        .from(sessions)
        .where(ofSession),
    )
    .returning();
  const oldestKept = sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${target.sessionId}
    order by ${messages.id} desc limit 1 offset ${options.historyCap})`;
  const trim = shard
    .delete(messages)
    .where(and(eq(messages.sessionId, target.sessionId), eq(messages.mindId, target.mindId), lte(messages.id, oldestKept), visible))
    .returning({ id: messages.id });
  const touch = shard.update(sessions).set({ lastMessageAt: now }).where(ofSession);
  // Before the insert: the latest searchable message gains the new one as its next neighbour.
  const link = shard
    .update(messages)
    .set({ searchNear: sql`trim(${messages.searchNear} || ' ' || ${searchContent})` })
    .where(and(eq(messages.mindId, target.mindId), eq(messages.id, ephemeral ? sql`null` : latestSearchable(target)), visible));

  if (options.clearEphemeral) {
    const clear = shard.delete(messages).where(and(ephemeralOf(target), visible)).returning({ id: messages.id });
    const [cleared, , inserted, trimmed] = await shard.batch([clear, link, insert, trim, touch, guard]);
    return { message: inserted[0] ? toMessage(inserted[0]) : null, cleared: cleared.length, trimmed: trimmed.length };
  }
  const [, inserted, trimmed] = await shard.batch([link, insert, trim, touch, guard]);
  return { message: inserted[0] ? toMessage(inserted[0]) : null, cleared: 0, trimmed: trimmed.length };
}

/** Deletes the session's ephemeral messages; returns how many went. */
export async function clearEphemeral({ shard }: Pick<InShard, "shard">, target: SessionTarget): Promise<number> {
  const rows = await shard.delete(messages).where(ephemeralOf(target)).returning({ id: messages.id });
  return rows.length;
}

import { and, count, desc, eq, lte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { messages, sessions } from "../db/schema";
import type { InShard } from "../deps";
import { inScope } from "../memory/filters";
import { toIndexText } from "../memory/normalize";
import { afterWrite, type WriterContext, writeWith } from "../memory/outbox";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import type { MindSettings } from "../tenancy/settings";
import { type Message, type NewMessage, type SessionTarget, toMessage } from "./rows";
import type { Dialogue } from "./windows";

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
  /** The dialogue after the write, when asked for (`window`), read in the same batch. */
  dialogue: Dialogue | null;
}

interface AppendOptions {
  clearEphemeral: boolean;
  historyCap: number;
  agentFilter: string | null;
  /** The LLM window's size to read back with the write (none: no read). */
  window?: number | null;
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
  options: AppendOptions & { settings: MindSettings },
): Promise<AppendWrite> {
  const mind = { shard: deps.shard, mind: { id: target.mindId, settings: options.settings } };
  return writeWithinQuota(mind, { bytes: storedBytes(input.content) }, (guard) => batchAppend(deps, target, input, options, guard));
}

async function batchAppend(
  { shard, clock }: Pick<InShard, "shard" | "clock">,
  target: SessionTarget,
  input: NewMessage,
  options: AppendOptions,
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

  // Clearing comes first: an ephemeral message being appended must not be cleared with the rest.
  const clear = options.clearEphemeral ? [shard.delete(messages).where(and(ephemeralOf(target), visible)).returning({ id: messages.id })] : [];
  const size = options.window ?? null;
  // Last: the reads see what every write of the batch left.
  const reads = size === null ? [] : dialogueReads(shard, target, size, visible);
  const statements = [...clear, link, insert, trim, touch, guard, ...reads] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
  const results: unknown[] = await shard.batch(statements);
  const [inserted, trimmed] = results.slice(clear.length + 1, clear.length + 3) as [MessageRow[], { id: number }[]];
  const cleared = clear.length > 0 ? (results[0] as { id: number }[]).length : 0;
  const dialogue = size === null ? null : toDialogue(results.slice(-2) as [MessageRow[], { n: number }[]]);
  return { message: inserted[0] ? toMessage(inserted[0]) : null, cleared, trimmed: trimmed.length, dialogue };
}

type MessageRow = typeof messages.$inferSelect;

/** The LLM window (newest first) and the count of ephemeral messages left, as the batch leaves them. */
function dialogueReads(shard: Db, target: SessionTarget, size: number, visible: SQL) {
  const ofSession = and(eq(messages.sessionId, target.sessionId), eq(messages.mindId, target.mindId), visible);
  return [
    shard.select().from(messages).where(and(ofSession, eq(messages.ephemeral, false))).orderBy(desc(messages.id)).limit(size),
    shard.select({ n: count() }).from(messages).where(and(ofSession, eq(messages.ephemeral, true))),
  ] as const;
}

const toDialogue = ([window, ephemeral]: [MessageRow[], { n: number }[]]): Dialogue => ({
  window: window.reverse().map(toMessage),
  ephemeral: ephemeral[0]?.n ?? 0,
});

/** "Done? Yes": deletes the session's ephemeral messages, and the session is done (its event); returns how many went. */
export async function clearEphemeral(deps: WriterContext, target: SessionTarget): Promise<number> {
  const after = afterWrite(deps, { row: "session", what: "done", ids: [target.sessionId] });
  const rows = await writeWith(deps.shard, deps.shard.delete(messages).where(ephemeralOf(target)).returning({ id: messages.id }), after);
  after.landed();
  return rows.length;
}

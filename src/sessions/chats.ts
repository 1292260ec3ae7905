import { and, count, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { isoNow } from "../clock";
import { chats, messages, sessions } from "../db/schema";
import { notFound } from "../errors";
import { newId } from "../ids";
import { inScope } from "../memory/filters";
import type { MindContext } from "../tenancy/mind-context";
import type { Scope } from "../tenancy/principal";
import type { chatSummaryRecord } from "./fields";
import { forgetSessionObjects } from "./objects";
import { type Chat, type ChatKind, storedExternalId, toChat } from "./rows";

/** Where a chat lives: the mind's shard and the scope's namespace (a `MindContext` is one). */
type ChatNamespace = Pick<MindContext, "shard"> & { scope: Pick<Scope, "mindId" | "agent"> };

/** The chat of this kind and name in the scope's mind and namespace, created when it does not exist yet. */
export async function ensureChat(
  { shard, clock, scope }: ChatNamespace & Pick<MindContext, "clock">,
  kind: ChatKind,
  name: string,
): Promise<{ chat: Chat; created: boolean }> {
  const { mindId, agent } = scope;
  const id = newId("chat");
  const externalId = storedExternalId(agent, name);
  const inserted = await shard
    .insert(chats)
    .values({ id, mindId, agent, kind, externalId, createdAt: isoNow(clock) })
    .onConflictDoNothing({ target: [chats.mindId, chats.kind, chats.externalId] })
    .returning();
  if (inserted[0]) return { chat: toChat(inserted[0]), created: true };
  const chat = await findChat({ shard, scope }, kind, name);
  if (!chat) throw notFound("chat");
  return { chat, created: false };
}

/** The chat of this kind and name in the scope's mind and namespace, or null. */
export async function findChat({ shard, scope }: ChatNamespace, kind: ChatKind, name: string): Promise<Chat | null> {
  const { mindId, agent } = scope;
  const row = await shard
    .select()
    .from(chats)
    .where(
      and(eq(chats.mindId, mindId), eq(chats.agent, agent), eq(chats.kind, kind), eq(chats.externalId, storedExternalId(agent, name))),
    )
    .get();
  return row ? toChat(row) : null;
}

/** A chat of the scope's mind and namespace; any other is answered like a missing one. */
export async function getChat({ shard, scope }: Pick<MindContext, "scope" | "shard">, chatId: string): Promise<Chat> {
  const row = await shard
    .select()
    .from(chats)
    .where(and(eq(chats.id, chatId), inScope(scope, chats)))
    .get();
  if (!row) throw notFound("chat");
  return toChat(row);
}

export type ChatSummary = z.output<typeof chatSummaryRecord>;

/** The scope's chats, oldest first, with how many sessions each holds. */
export async function listChats({ shard, scope }: Pick<MindContext, "scope" | "shard">, page: { limit: number; offset: number }): Promise<ChatSummary[]> {
  const rows = await shard
    .select({ chat: chats, sessionCount: count(sessions.id) })
    .from(chats)
    .leftJoin(sessions, and(eq(sessions.chatId, chats.id), eq(sessions.mindId, scope.mindId)))
    .where(inScope(scope, chats))
    .groupBy(chats.id)
    .orderBy(chats.createdAt, chats.id)
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(({ chat, sessionCount }) => ({ ...toChat(chat), session_count: sessionCount }));
}

/**
 * Erases a chat with all its sessions and their messages (one batch: the foreign keys
 * cascade, the search index follows by trigger), then the sessions' object state.
 */
export async function deleteChat(mindContext: Pick<MindContext, "scope" | "sessionObjects" | "shard">, chatId: string): Promise<Record<string, number>> {
  const { scope } = mindContext;
  const { shard } = mindContext;
  await getChat(mindContext, chatId);
  const chatSessions = shard
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.chatId, chatId), eq(sessions.mindId, scope.mindId)));
  const [sessionRows, messageCount, deleted] = await shard.batch([
    chatSessions,
    shard
      .select({ n: count() })
      .from(messages)
      .where(and(eq(messages.mindId, scope.mindId), inArray(messages.sessionId, chatSessions))),
    shard
      .delete(chats)
      .where(and(eq(chats.id, chatId), inScope(scope, chats)))
      .returning({ id: chats.id }),
  ]);
  if (deleted.length === 0) throw notFound("chat");
  await forgetSessionObjects(mindContext.sessionObjects, sessionRows.map((s) => s.id));
  return { chats: 1, sessions: sessionRows.length, messages: messageCount[0]?.n ?? 0 };
}

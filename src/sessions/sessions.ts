import { and, count, desc, eq, type SQL, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { chats, messages, sessions } from "../db/schema";
import type { InShard } from "../deps";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import { inScope } from "../memory/filters";
import { afterWrite } from "../memory/outbox";
import type { MindContext } from "../tenancy/mind-context";
import { ensureChat, getChat } from "./chats";
import { forgetSessionObjects, type SessionState, sessionObject } from "./objects";
import { type Chat, DEFAULT_CHAT, DEFAULT_TASK, type Session, shownExternalId, shownRepoPath, storedExternalId, storedRepoPath, toChat } from "./rows";

export interface SessionInput {
  repo_path?: string | null;
  task_name: string;
}

// One query shape for every read of sessions: the chat it lives in and its message count.
const messageCount = sql<number>`(select count(*) from ${messages} where ${messages.sessionId} = ${sessions.id})`;

function sessionsQuery(shard: Db, where: SQL | undefined, page: { limit: number; offset: number } = { limit: 1, offset: 0 }) {
  return shard
    .select({ session: sessions, chat: chats, messageCount })
    .from(sessions)
    .innerJoin(chats, and(eq(chats.id, sessions.chatId), eq(chats.mindId, sessions.mindId), eq(chats.agent, sessions.agent)))
    .where(where)
    .orderBy(desc(sql`coalesce(${sessions.lastMessageAt}, ${sessions.createdAt})`), desc(sessions.id))
    .limit(page.limit)
    .offset(page.offset);
}

type SessionRow = Awaited<ReturnType<typeof sessionsQuery>>[number];

const toSession = ({ session, chat, messageCount }: SessionRow): Session => ({
  id: session.id,
  agent: session.agent,
  chat: { id: chat.id, kind: chat.kind, external_id: shownExternalId(chat.agent, chat.externalId) },
  repo_path: shownRepoPath(session.repoPath),
  task_name: session.taskName,
  conversation_id: session.conversationId,
  active: chat.activeSessionId === session.id,
  message_count: messageCount,
  extracted_through_message_id: session.extractedThroughMessageId,
  created_at: session.createdAt,
  last_message_at: session.lastMessageAt,
});

async function selectSessions(
  { shard }: Pick<InShard, "shard">,
  where: SQL | undefined,
  page?: { limit: number; offset: number },
): Promise<Session[]> {
  return (await sessionsQuery(shard, where, page)).map(toSession);
}

/**
 * A session of the scope's mind and namespace; another mind's or another namespace's session
 * is answered like a missing one.
 */
export async function getSession(mindContext: MindContext, sessionId: string): Promise<Session> {
  const { scope } = mindContext;
  const [session] = await selectSessions(mindContext, and(eq(sessions.id, sessionId), inScope(scope, sessions)));
  if (!session) throw notFound("session");
  return session;
}

/** A session of the scope's mind with its object's counters. */
export async function getSessionWithState(
  mindContext: MindContext,
  sessionId: string,
): Promise<Session & { state: SessionState }> {
  const session = await getSession(mindContext, sessionId);
  return { ...session, state: await sessionObject(mindContext.sessionObjects, sessionId).state() };
}

export interface SessionListFilter {
  chatId?: string;
  /** An API client's chat name. */
  chat?: string;
  limit: number;
  offset: number;
}

/**
 * The scope's sessions (of one chat when asked), most recently used first, with message
 * counts. An API chat named by `chat` is the one in the scope's write namespace.
 */
export async function listSessions(mindContext: MindContext, filter: SessionListFilter): Promise<Session[]> {
  const { scope } = mindContext;
  return selectSessions(
    mindContext,
    and(
      inScope(scope, sessions),
      filter.chatId !== undefined ? eq(sessions.chatId, filter.chatId) : undefined,
      filter.chat !== undefined
        ? and(eq(chats.kind, "api"), eq(chats.agent, scope.agent), eq(chats.externalId, storedExternalId(scope.agent, filter.chat)))
        : undefined,
    ),
    filter,
  );
}

/**
 * Opens the task (chat, repo_path, task_name) in a chat of the scope: creates it in the
 * chat's namespace, or finds the one that exists, and makes it the chat's active session.
 * Creating and activating are one batch.
 */
export async function openSession(
  mindContext: MindContext,
  chatId: string,
  input: SessionInput,
): Promise<{ session: Session; created: boolean }> {
  const { scope } = mindContext;
  const { shard, clock } = mindContext;
  const chat = await getChat(mindContext, chatId);
  const id = newId("ses");
  const repoPath = storedRepoPath(input.repo_path);
  const sameTask = and(
    eq(sessions.chatId, chatId),
    eq(sessions.mindId, scope.mindId),
    eq(sessions.repoPath, repoPath),
    eq(sessions.taskName, input.task_name),
  );
  const after = afterWrite(mindContext, { row: "session", what: "created", ids: [id] });
  const [inserted] = await shard.batch([
    shard
      .insert(sessions)
      .values({
        id,
        mindId: scope.mindId,
        agent: chat.agent,
        chatId,
        repoPath,
        taskName: input.task_name,
        conversationId: crypto.randomUUID(),
        extractedThroughMessageId: 0,
        createdAt: isoNow(clock),
      })
      .onConflictDoNothing({ target: [sessions.chatId, sessions.repoPath, sessions.taskName] })
      .returning({ id: sessions.id }),
    shard
      .update(chats)
      .set({ activeSessionId: sql`(select ${sessions.id} from ${sessions} where ${sameTask})` })
      .where(and(eq(chats.id, chatId), eq(chats.mindId, scope.mindId))),
    ...after.statements,
  ]);
  if (inserted.length > 0) after.landed();
  const [session] = await selectSessions(mindContext, sameTask);
  if (!session) throw notFound("chat");
  return { session, created: inserted.length > 0 };
}

/** `POST /sessions`: the task in an API client's chat (named, or the default one). */
export async function openApiSession(
  mindContext: MindContext,
  input: SessionInput & { chat?: string },
): Promise<{ session: Session; created: boolean }> {
  const { chat } = await ensureChat(mindContext, "api", input.chat ?? DEFAULT_CHAT);
  return openSession(mindContext, chat.id, input);
}

/** Makes the session its chat's active one. */
export async function activateSession(mindContext: MindContext, sessionId: string): Promise<Session> {
  const { scope } = mindContext;
  const session = await getSession(mindContext, sessionId);
  await mindContext.shard
    .update(chats)
    .set({ activeSessionId: session.id })
    .where(and(eq(chats.id, session.chat.id), inScope(scope, chats)));
  return { ...session, active: true };
}

/**
 * A chat has one active session: the one it last opened or switched to, or, when there is none
 * (or it was deleted), the default task, opened for it.
 */
export async function activeSession(mindContext: MindContext, chat: Chat): Promise<Session> {
  const activeId = chat.active_session_id;
  if (activeId) {
    try {
      return await getSession(mindContext, activeId);
    } catch (error) {
      if (!(error instanceof AppError && error.code === "not_found")) throw error;
    }
  }
  return (await openSession(mindContext, chat.id, { task_name: DEFAULT_TASK })).session;
}

/**
 * A chat of the scope and its active session (null: none, or it was deleted), in one round trip;
 * another mind's or namespace's chat is not found.
 */
export async function chatWithActiveSession(mindContext: Pick<MindContext, "shard" | "scope">, chatId: string): Promise<{ chat: Chat; session: Session | null }> {
  const { shard, scope } = mindContext;
  const row = await shard
    .select({ session: sessions, chat: chats, messageCount })
    .from(chats)
    .leftJoin(sessions, and(eq(sessions.id, chats.activeSessionId), eq(sessions.mindId, chats.mindId), eq(sessions.agent, chats.agent), inScope(scope, sessions)))
    .where(and(eq(chats.id, chatId), inScope(scope, chats)))
    .get();
  if (!row) throw notFound("chat");
  const { session, chat } = row;
  return { chat: toChat(chat), session: session ? toSession({ ...row, session }) : null };
}

/** Erases a session and its messages, then its object state; returns what went. */
export async function deleteSession(mindContext: MindContext, sessionId: string): Promise<Record<string, number>> {
  const { scope } = mindContext;
  const { shard } = mindContext;
  await getSession(mindContext, sessionId);
  const [messageCount, deleted] = await shard.batch([
    shard
      .select({ n: count() })
      .from(messages)
      .where(and(eq(messages.sessionId, sessionId), eq(messages.mindId, scope.mindId))),
    shard
      .delete(sessions)
      .where(and(eq(sessions.id, sessionId), inScope(scope, sessions)))
      .returning({ id: sessions.id }),
  ]);
  if (deleted.length === 0) throw notFound("session");
  // After the rows: an append that slips in between finds no session and writes nothing.
  await forgetSessionObjects(mindContext.sessionObjects, [sessionId]);
  return { sessions: 1, messages: messageCount[0]?.n ?? 0 };
}

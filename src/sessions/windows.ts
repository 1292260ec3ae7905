import { and, asc, count, desc, eq, getTableColumns, gt, sql } from "drizzle-orm";
import { messages, sessions } from "../db/schema";
import { inScope } from "../memory/filters";
import { toMatchExpression } from "../memory/normalize";
import type { MindContext } from "../tenancy/mind-context";
import { type Message, type MindScope, toMessage } from "./rows";
import { getSession } from "./sessions";

// The read side of a session's history: what the model sees and what a person sees.

const { mindId: _mind, searchContent: _search, ...shownColumns } = getTableColumns(messages);

const ofSession = (scope: MindScope, sessionId: string) =>
  and(eq(messages.sessionId, sessionId), eq(messages.mindId, scope.mindId));

/** What the model is given of a session: its LLM window, and how many ephemeral messages were left out. */
export interface Dialogue {
  window: Message[];
  ephemeral: number;
}

/** The session's dialogue as it stands: its window and its ephemeral count, read together. */
export async function readDialogue(mindContext: MindContext, sessionId: string): Promise<Dialogue> {
  const [window, ephemeral] = await Promise.all([llmWindow(mindContext, sessionId), countEphemeral(mindContext, sessionId)]);
  return { window, ephemeral };
}

/** The LLM window: the last `llm_window` non-ephemeral messages, oldest first. */
export async function llmWindow(mindContext: MindContext, sessionId: string): Promise<Message[]> {
  const { scope } = mindContext;
  await getSession(mindContext, sessionId);
  const rows = await mindContext.shard
    .select(shownColumns)
    .from(messages)
    .where(and(ofSession(scope, sessionId), eq(messages.ephemeral, false)))
    .orderBy(desc(messages.id))
    .limit(mindContext.mind.settings.llm_window);
  return rows.reverse().map(toMessage);
}

/** How many ephemeral messages the session holds: output the model is never given. */
export async function countEphemeral(mindContext: Pick<MindContext, "scope" | "shard">, sessionId: string): Promise<number> {
  const { scope } = mindContext;
  const row = await mindContext.shard
    .select({ n: count() })
    .from(messages)
    .where(and(ofSession(scope, sessionId), eq(messages.ephemeral, true)))
    .get();
  return row?.n ?? 0;
}

export interface UiPage {
  messages: Message[];
  total: number;
  /** Pass as `after` for the next page; null on the last one. */
  next_after: number | null;
}

/** The UI channel: the whole history, ephemeral included, oldest first, after a cursor. */
export async function uiHistory(
  mindContext: MindContext,
  sessionId: string,
  page: { after: number; limit: number },
): Promise<UiPage> {
  const { scope } = mindContext;
  await getSession(mindContext, sessionId);
  const { shard } = mindContext;
  const [rows, total] = await shard.batch([
    shard
      .select(shownColumns)
      .from(messages)
      .where(and(ofSession(scope, sessionId), gt(messages.id, page.after)))
      .orderBy(asc(messages.id))
      .limit(page.limit + 1),
    shard.select({ n: count() }).from(messages).where(ofSession(scope, sessionId)),
  ]);
  const shown = rows.slice(0, page.limit).map(toMessage);
  const more = rows.length > page.limit;
  return { messages: shown, total: total[0]?.n ?? 0, next_after: more ? (shown.at(-1)?.id ?? null) : null };
}

export interface MessageHit {
  message: Message;
  score: number;
}

/**
 * Full-text search over the non-ephemeral messages of the scope's sessions (of one session when given),
 * best first. A query with no word in it finds nothing. `ownWords`: only messages that hold a
 * word of the query themselves, not found through the messages beside them.
 */
export async function searchMessages(
  mindContext: MindContext,
  options: { q: string; sessionId?: string; limit: number; ownWords?: boolean },
): Promise<MessageHit[]> {
  const { scope } = mindContext;
  const terms = toMatchExpression(scope.mindId, options.q);
  if (terms === null) return [];
  const match = options.ownWords ? `search_content : (${terms})` : terms;
  if (options.sessionId !== undefined) await getSession(mindContext, options.sessionId);
  // The neighbouring messages count for half of the message's own words.
  const score = sql<number>`(-bm25(messages_fts, 1.0, 0.5))`;
  const rows = await mindContext.shard
    .select({ ...shownColumns, score })
    .from(messages)
    .innerJoin(sql`messages_fts`, sql`messages_fts.rowid = ${messages.id}`)
    .innerJoin(sessions, and(eq(sessions.id, messages.sessionId), inScope(scope, sessions)))
    .where(
      and(
        sql`messages_fts match ${match}`,
        eq(messages.mindId, scope.mindId),
        options.sessionId !== undefined ? eq(messages.sessionId, options.sessionId) : undefined,
      ),
    )
    .orderBy(sql`${score} desc`, desc(messages.id))
    .limit(options.limit);
  return rows.map(({ score, ...row }) => ({ message: toMessage(row), score }));
}

import { and, asc, eq, gt } from "drizzle-orm";
import { isoNow } from "../clock";
import { type Db } from "../db/client";
import { chats, coldMemory, coldVersions, memories, memoryHistory, messages, notes, sessions } from "../db/schema";
import type { Deps } from "../deps";
import { toMemoryWithContext } from "../memory/rows";
import { shownExternalId, shownRepoPath } from "../sessions/rows";
import { getMind } from "../tenancy/minds";
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveLine } from "./archive";

const PAGE = 200;

/**
 * The mind as archive lines, read page by page so a large mind streams in constant memory:
 * memories with their history, notes, cold memory with every version, chats, sessions and
 * their messages. Keys are never exported.
 */
export async function* exportMind(deps: Pick<Deps, "directory" | "shards" | "clock">, accountId: string, mindId: string): AsyncGenerator<ArchiveLine> {
  const mind = await getMind(deps, accountId, mindId);
  const db = deps.shards.db(mind.shard);
  yield {
    type: "header",
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    exported_at: isoNow(deps.clock),
    mind: { id: mind.id, name: mind.name, locale: mind.locale as "en" | "ru", retention_hours: mind.retention_hours, settings: mind.settings },
  };
  yield* memoryLines(db, mindId);
  yield* noteLines(db, mindId);
  yield* coldLines(db, mindId);
  yield* chatLines(db, mindId);
}

/** Rows read a page at a time after a cursor (`read`), until a page comes back short. */
async function* paged<R, C>(first: C, read: (after: C) => Promise<R[]>, cursorOf: (row: R) => C): AsyncGenerator<R> {
  for (let after = first; ; ) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < PAGE) return;
    after = cursorOf(rows.at(-1)!);
  }
}

/** The mind's memories, then every entry of their history. */
async function* memoryLines(db: Db, mindId: string): AsyncGenerator<ArchiveLine> {
  const memoryPages = paged("", (after) => db.select().from(memories).where(and(eq(memories.mindId, mindId), gt(memories.id, after))).orderBy(asc(memories.id)).limit(PAGE), (m) => m.id);
  for await (const m of memoryPages) {
    const { mind_id, ...memory } = toMemoryWithContext(m, m.context !== "");
    yield { type: "memory", ...memory };
  }
  const historyPages = paged(0, (after) => db.select().from(memoryHistory).where(and(eq(memoryHistory.mindId, mindId), gt(memoryHistory.id, after))).orderBy(asc(memoryHistory.id)).limit(PAGE), (h) => h.id);
  for await (const h of historyPages) {
    yield { type: "memory_history", memory_id: h.memoryId, action: h.action, actor: h.actor, old_content: h.oldContent, new_content: h.newContent, at: h.at, changes: h.changes };
  }
}

async function* noteLines(db: Db, mindId: string): AsyncGenerator<ArchiveLine> {
  const pages = paged("", (after) => db.select().from(notes).where(and(eq(notes.mindId, mindId), gt(notes.id, after))).orderBy(asc(notes.id)).limit(PAGE), (n) => n.id);
  for await (const n of pages) {
    yield {
      type: "note", id: n.id, agent: n.agent, session_id: n.sessionId, text: n.text, category_hint: n.categoryHint,
      source: n.source === "user" ? "user" : "agent", confidence: n.confidence, created_at: n.createdAt,
      ...(n.context !== "" && { context: n.context }),
    };
  }
}

/** Each namespace's cold memory, followed by its every version. */
async function* coldLines(db: Db, mindId: string): AsyncGenerator<ArchiveLine> {
  for (const c of await db.select().from(coldMemory).where(eq(coldMemory.mindId, mindId)).orderBy(asc(coldMemory.agent))) {
    yield { type: "cold_memory", agent: c.agent, text: c.text, version: c.version, updated_at: c.updatedAt };
    const versions = paged(
      0,
      (after) =>
        db
          .select()
          .from(coldVersions)
          .where(and(eq(coldVersions.mindId, mindId), eq(coldVersions.agent, c.agent), gt(coldVersions.version, after)))
          .orderBy(asc(coldVersions.version))
          .limit(PAGE),
      (v) => v.version,
    );
    for await (const v of versions) {
      yield { type: "cold_version", agent: v.agent, version: v.version, text: v.text, author: v.author, consolidation_id: v.consolidationId, created_at: v.createdAt };
    }
  }
}

/** Every chat, then each chat's sessions, each followed by its messages. */
async function* chatLines(db: Db, mindId: string): AsyncGenerator<ArchiveLine> {
  const mindChats = await db.select().from(chats).where(eq(chats.mindId, mindId)).orderBy(asc(chats.id));
  for (const chat of mindChats) {
    yield {
      type: "chat", id: chat.id, agent: chat.agent, kind: chat.kind, external_id: shownExternalId(chat.agent, chat.externalId),
      active_session_id: chat.activeSessionId, created_at: chat.createdAt,
    };
  }
  for (const chat of mindChats) {
    const chatSessions = await db
      .select()
      .from(sessions)
      .where(and(eq(sessions.mindId, mindId), eq(sessions.chatId, chat.id)))
      .orderBy(asc(sessions.id));
    for (const s of chatSessions) {
      yield {
        type: "session", id: s.id, chat_id: s.chatId, repo_path: shownRepoPath(s.repoPath), task_name: s.taskName,
        conversation_id: s.conversationId, extracted_through_message_id: s.extractedThroughMessageId,
        created_at: s.createdAt, last_message_at: s.lastMessageAt,
      };
      yield* sessionMessages(db, mindId, s.id);
    }
  }
}

async function* sessionMessages(db: Db, mindId: string, sessionId: string): AsyncGenerator<ArchiveLine> {
  const pages = paged(
    0,
    (after) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.sessionId, sessionId), eq(messages.mindId, mindId), gt(messages.id, after)))
        .orderBy(asc(messages.id))
        .limit(PAGE),
    (m) => m.id,
  );
  for await (const m of pages) {
    yield { type: "message", id: m.id, session_id: m.sessionId, role: m.role, content: m.content, ephemeral: m.ephemeral, tool: m.tool, created_at: m.createdAt };
  }
}

/** The archive as a JSONL byte stream, produced as the reader pulls it. */
export function archiveStream(lines: AsyncGenerator<ArchiveLine>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(JSON.stringify(next.value) + "\n"));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
}

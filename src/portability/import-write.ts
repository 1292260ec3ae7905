import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { chats, coldMemory, coldVersions, memories, memoryHistory, messages, minds, notes, sessions } from "../db/schema";
import { newId } from "../ids";
import { memorySearchColumns } from "../memory/memories";
import { toMemoryColumns } from "../memory/model";
import { noteValues } from "../notes/notes";
import { messageSearchText } from "../sessions/history";
import { storedExternalId, storedRepoPath } from "../sessions/model";
import type { QuotaNeed } from "../tenancy/quotas";
import { storedBytes } from "../tenancy/quotas";
import type { ArchiveLine, Line } from "./archive";
import type { Pause } from "./import-pace";
import type { StagedKind } from "./import-stage";

// Writing one slice of a staged import: its rows become statements of one D1 batch. Rows of a
// table that follow one another share a multi-row insert within D1's bounds.

/** D1 binds at most 100 parameters per statement; a statement also carries at most this much text. */
const MAX_PARAMS = 100;
const BYTES_PER_STATEMENT = 512 * 1024;
/** Characters of text indexed between two pauses (stemming costs about half a millisecond a KB). */
const INDEXED_PER_PAUSE = 32 * 1024;

export interface SliceRow {
  seq: number;
  kind: StagedKind;
  data: Record<string, unknown>;
}

type Data<T extends ArchiveLine["type"]> = Line<T>;
type Statement = BatchItem<"sqlite">;

/**
 * The statements writing a slice, and what they add to the mind (for its quotas). A message is
 * indexed with its neighbours: the one before it, when an earlier slice wrote it, is read by the
 * statement itself; the one after it, when a later slice writes it, is in `nextOutside` by seq.
 * Pauses between rows once INDEXED_PER_PAUSE characters have been indexed.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split into named steps
export async function sliceStatements(
  db: Db, mindId: string, rows: SliceRow[], nextOutside: Map<number, string>, pause: Pause,
): Promise<{ statements: Statement[]; need: Required<QuotaNeed> }> {
  let indexed = 0;
  const paced = async (chars: number) => {
    indexed += chars;
    if (indexed < INDEXED_PER_PAUSE) return;
    indexed = 0;
    await pause();
  };
  const statements: Statement[] = [];
  const need = { memories: 0, notes: 0, bytes: 0 };
  let pending: { table: SQLiteTable; values: Record<string, unknown>[]; bytes: number; columns: number } | null = null;
  const end = () => {
    if (pending) statements.push(db.insert(pending.table).values(pending.values as never) as unknown as Statement);
    pending = null;
  };
  const insert = (table: SQLiteTable, values: Record<string, unknown>) => {
    const columns = Object.keys(values).length;
    let bytes = 0;
    for (const v of Object.values(values)) if (typeof v === "string") bytes += v.length * 3;
    if (pending && (pending.table !== table || (pending.values.length + 1) * columns > MAX_PARAMS || pending.bytes + bytes > BYTES_PER_STATEMENT)) end();
    if (!pending) pending = { table, values: [], bytes: 0, columns };
    pending.values.push(values);
    pending.bytes += bytes;
  };
  const statement = (s: Statement) => {
    end();
    statements.push(s);
  };
  // The indexed text of each searchable message of the slice, by seq, for its neighbours.
  const searchText = new Map<number, string>();
  const textOf = (seq: number) => searchText.get(seq) ?? nextOutside.get(seq) ?? "";
  for (const row of rows) {
    if (row.kind === "message" && !(row.data as Data<"message">).ephemeral) {
      const { content } = row.data as Data<"message">;
      searchText.set(row.seq, messageSearchText(mindId, content, false));
      await paced(content.length);
    }
  }
  // The latest searchable message of each session written so far, within the slice.
  const before = new Map<string, number>();

  for (const { seq, kind, data } of rows) {
    switch (kind) {
      case "memory": {
        const m = data as Data<"memory">;
        need.memories++;
        need.bytes += storedBytes(m.key, m.content, JSON.stringify(m.tags));
        const { type, context, ...memory } = m;
        insert(memories, { ...toMemoryColumns({ ...memory, mind_id: mindId }), ...memorySearchColumns(mindId, m.key, m.content, m.tags, context) });
        await paced(m.content.length + (m.context?.length ?? 0));
        break;
      }
      case "memory_history": {
        const h = data as Data<"memory_history">;
        insert(memoryHistory, { mindId, memoryId: h.memory_id, action: h.action, actor: h.actor, oldContent: h.old_content, newContent: h.new_content, at: h.at, changes: h.changes ?? null });
        break;
      }
      case "chat": {
        const c = data as Data<"chat">;
        insert(chats, { id: c.id, mindId, agent: c.agent, kind: c.kind, externalId: storedExternalId(c.agent, c.external_id), createdAt: c.created_at });
        break;
      }
      case "session": {
        const s = data as Data<"session"> & { agent: string };
        insert(sessions, {
          id: s.id, mindId, agent: s.agent, chatId: s.chat_id, repoPath: storedRepoPath(s.repo_path), taskName: s.task_name,
          conversationId: s.conversation_id, extractedThroughMessageId: 0, createdAt: s.created_at, lastMessageAt: s.last_message_at,
        });
        break;
      }
      case "chat_active": {
        const { chat_id, session_id } = data as { chat_id: string; session_id: string };
        statement(db.update(chats).set({ activeSessionId: session_id }).where(and(eq(chats.id, chat_id), eq(chats.mindId, mindId))) as unknown as Statement);
        break;
      }
      case "message": {
        const m = data as Data<"message"> & { next: number | null };
        need.bytes += storedBytes(m.content);
        const own = searchText.get(seq) ?? "";
        const next = m.next === null ? "" : textOf(m.next);
        const prior = before.get(m.session_id);
        const values = {
          mindId, sessionId: m.session_id, role: m.role, content: m.content, ephemeral: m.ephemeral, tool: m.tool,
          createdAt: m.created_at, searchContent: own, searchNear: "",
        };
        if (m.ephemeral) {
          insert(messages, values);
        } else if (prior !== undefined) {
          insert(messages, { ...values, searchNear: `${textOf(prior)} ${next}`.trim() });
        } else {
          // The message before it was written by an earlier slice (or there is none): read there.
          const latest = sql`coalesce((select m.search_content from messages m where m.session_id = ${m.session_id}
            and m.mind_id = ${mindId} and m.ephemeral = 0 order by m.id desc limit 1), '')`;
          statement(db.insert(messages).values({ ...values, searchNear: sql`trim(${latest} || ' ' || ${next})` }) as unknown as Statement);
        }
        if (!m.ephemeral) before.set(m.session_id, seq);
        break;
      }
      case "cursor": {
        // The extraction cursor moves to the same message in the new ids.
        const { session_id, read } = data as { session_id: string; read: number };
        statement(
          db
            .update(sessions)
            .set({
              extractedThroughMessageId: sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${session_id} order by ${messages.id} limit 1 offset ${read - 1})`,
            })
            .where(and(eq(sessions.id, session_id), eq(sessions.mindId, mindId))) as unknown as Statement,
        );
        break;
      }
      case "note": {
        const n = data as Data<"note">;
        need.notes++;
        need.bytes += storedBytes(n.text);
        const fields = { mindId, agent: n.agent, text: n.text, sessionId: n.session_id, categoryHint: n.category_hint, source: n.source, confidence: n.confidence };
        insert(notes, { ...noteValues(fields, n.created_at, n.context) });
        await paced(n.text.length + (n.context?.length ?? 0));
        break;
      }
      case "cold_memory": {
        const c = data as Data<"cold_memory">;
        insert(coldMemory, { mindId, agent: c.agent, text: c.text, version: c.version, writeId: newId("cw"), updatedAt: c.updated_at });
        break;
      }
      case "cold_version": {
        const v = data as Data<"cold_version">;
        need.bytes += storedBytes(v.text);
        insert(coldVersions, { mindId, agent: v.agent, version: v.version, text: v.text, author: v.author, consolidationId: v.consolidation_id, createdAt: v.created_at });
        break;
      }
      case "settings": {
        const s = data as { locale: string; retention_hours: number | null; settings: Record<string, unknown> };
        statement(db.update(minds).set({ locale: s.locale, retentionHours: s.retention_hours, settings: s.settings }).where(eq(minds.id, mindId)) as unknown as Statement);
        break;
      }
    }
  }
  end();
  return { statements, need };
}

/** Seqs of messages after the slice that its messages name as their next neighbour. */
export function nextOutsideSlice(rows: SliceRow[]): number[] {
  const last = rows.at(-1)?.seq ?? -1;
  const wanted = new Set<number>();
  for (const row of rows) {
    const next = row.kind === "message" ? (row.data as { next: number | null }).next : null;
    if (next !== null && next > last) wanted.add(next);
  }
  return [...wanted];
}

import { and, count, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { chats, coldMemory, coldVersions, memories, memoryHistory, messages, minds, notes, sessions } from "../db/schema";
import type { Deps } from "../deps";
import { describeZodError } from "../api/errors";
import { conflict, invalid } from "../errors";
import { newId } from "../ids";
import { memorySearchColumns } from "../memory/memories";
import { noteValues } from "../notes/notes";
import { indexNeighbours, messageSearchText } from "../sessions/history";
import { storedExternalId, storedRepoPath } from "../sessions/model";
import { archiveLineSchema, type ArchiveHeader, type ArchiveLine, type Line } from "./archive";
import { getMind } from "./minds";
import { resolveSettings } from "./settings";

/** Most statements written in one D1 batch. */
const STATEMENTS_PER_BATCH = 50;
/** D1 binds at most 100 parameters per statement. */
const MAX_PARAMS = 100;

export interface ImportCounts {
  memories: number;
  memory_history: number;
  notes: number;
  cold_memory: number;
  cold_versions: number;
  chats: number;
  sessions: number;
  messages: number;
}

/** Parses a JSONL archive completely; the first bad line is a 400 naming it, before anything is written. */
export function parseArchive(body: string): { header: ArchiveHeader; lines: ArchiveLine[] } {
  const lines: ArchiveLine[] = [];
  const raw = body.split("\n");
  for (const [index, content] of raw.entries()) {
    if (content.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      throw invalid(`line ${index + 1}: not valid JSON`);
    }
    const parsed = archiveLineSchema.safeParse(value);
    if (!parsed.success) throw invalid(`line ${index + 1}: ${describeZodError(parsed.error)}`);
    if ((parsed.data.type === "header") !== (lines.length === 0)) {
      throw invalid(`line ${index + 1}: the header must be the first line, and only the first`);
    }
    lines.push(parsed.data);
  }
  const header = lines[0];
  if (header?.type !== "header") throw invalid("the archive is empty");
  return { header, lines: lines.slice(1) };
}

/**
 * Restores an archive into an empty mind of the account: every row gets a fresh id, the
 * references between rows follow. A mind that holds anything answers conflict. A failed
 * write erases what the import had written, so the mind is left as empty as it was.
 */
export async function importMind(deps: Deps, accountId: string, mindId: string, body: string): Promise<ImportCounts> {
  await getMind(deps, accountId, mindId);
  const { header, lines } = parseArchive(body);
  if (!(await isEmpty(deps, mindId))) throw conflict("the mind is not empty: import restores into an empty mind only");
  const plan = planImport(deps, mindId, header, lines);
  try {
    for (let i = 0; i < plan.statements.length; i += STATEMENTS_PER_BATCH) {
      const chunk = plan.statements.slice(i, i + STATEMENTS_PER_BATCH);
      await deps.db.batch(chunk as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    }
  } catch (err) {
    await eraseContent(deps, mindId);
    throw err;
  }
  return plan.counts;
}

async function isEmpty({ db }: Deps, mindId: string): Promise<boolean> {
  const tables = [memories, memoryHistory, notes, coldMemory, coldVersions, chats, sessions] as const;
  const counted = await db.batch(
    tables.map((t) => db.select({ n: count() }).from(t).where(eq(t.mindId, mindId))) as unknown as [BatchItem<"sqlite">],
  );
  return (counted as { n: number }[][]).every((rows) => (rows[0]?.n ?? 0) === 0);
}

/** Deletes every content row of the mind, keeping the mind, its keys and its ledger. */
async function eraseContent({ db }: Deps, mindId: string): Promise<void> {
  await db.batch([
    db.delete(chats).where(eq(chats.mindId, mindId)),
    db.delete(sessions).where(eq(sessions.mindId, mindId)),
    db.delete(memories).where(eq(memories.mindId, mindId)),
    db.delete(memoryHistory).where(eq(memoryHistory.mindId, mindId)),
    db.delete(notes).where(eq(notes.mindId, mindId)),
    db.delete(coldMemory).where(eq(coldMemory.mindId, mindId)),
    db.delete(coldVersions).where(eq(coldVersions.mindId, mindId)),
  ]);
}

function chunked<T>(rows: T[], columns: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMS / columns));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

function byType<T extends ArchiveLine["type"]>(lines: ArchiveLine[], type: T): Line<T>[] {
  return lines.filter((l): l is Line<T> => l.type === type);
}

/** Every statement of the import, in an order the foreign keys accept, with fresh ids. */
function planImport(deps: Deps, mindId: string, header: ArchiveHeader, lines: ArchiveLine[]) {
  const { db } = deps;
  const ids = new Map<string, string>();
  const fresh = (old: string, prefix: string) => {
    let id = ids.get(old);
    if (!id) ids.set(old, (id = newId(prefix)));
    return id;
  };
  const known = (old: string | null) => (old === null ? null : (ids.get(old) ?? null));
  const statements: unknown[] = [];

  const memoryRows = byType(lines, "memory").map((m) => ({
    id: fresh(m.id, "mem"), mindId, agent: m.agent, category: m.category, key: m.key, content: m.content, tags: m.tags,
    priority: m.priority, source: m.source, verified: m.verified, confidence: m.confidence, expiresAt: m.expires_at,
    createdAt: m.created_at, updatedAt: m.updated_at, ...memorySearchColumns(m.key, m.content, m.tags, m.context),
  }));
  for (const rows of chunked(memoryRows, 19)) statements.push(db.insert(memories).values(rows));

  // History outlives deleted memories: an id with no memory line still gets one fresh id.
  const historyRows = byType(lines, "memory_history").map((h) => ({
    mindId, memoryId: fresh(h.memory_id, "mem"), action: h.action, actor: h.actor, oldContent: h.old_content, newContent: h.new_content, at: h.at,
  }));
  for (const rows of chunked(historyRows, 8)) statements.push(db.insert(memoryHistory).values(rows));

  const chatLines = byType(lines, "chat");
  const sessionLines = byType(lines, "session");
  for (const c of chatLines) fresh(c.id, "chat");
  for (const s of sessionLines) {
    if (!ids.has(s.chat_id)) throw invalid(`session ${s.id} belongs to chat ${s.chat_id}, which is not in the archive`);
    fresh(s.id, "ses");
  }
  const chatRows = chatLines.map((c) => ({
    id: ids.get(c.id)!, mindId, agent: c.agent, kind: c.kind, externalId: storedExternalId(c.agent, c.external_id), createdAt: c.created_at,
  }));
  for (const rows of chunked(chatRows, 6)) statements.push(db.insert(chats).values(rows));
  const chatAgent = new Map(chatLines.map((c) => [c.id, c.agent]));
  const sessionRows = sessionLines.map((s) => ({
    id: ids.get(s.id)!, mindId, agent: chatAgent.get(s.chat_id)!, chatId: ids.get(s.chat_id)!, repoPath: storedRepoPath(s.repo_path), taskName: s.task_name,
    conversationId: s.conversation_id, extractedThroughMessageId: 0, createdAt: s.created_at, lastMessageAt: s.last_message_at,
  }));
  for (const rows of chunked(sessionRows, 9)) statements.push(db.insert(sessions).values(rows));
  for (const c of chatLines) {
    const active = known(c.active_session_id);
    if (active) statements.push(db.update(chats).set({ activeSessionId: active }).where(and(eq(chats.id, ids.get(c.id)!), eq(chats.mindId, mindId))));
  }

  const messageLines = byType(lines, "message");
  for (const m of messageLines) {
    if (!ids.has(m.session_id)) throw invalid(`message ${m.id} belongs to session ${m.session_id}, which is not in the archive`);
  }
  // Message ids are the database's own; the extraction cursor is moved to the same place in the new ids.
  const messageRows = [...messageLines]
    .sort((a, b) => a.id - b.id)
    .map((m) => ({
      mindId, sessionId: ids.get(m.session_id)!, role: m.role, content: m.content, ephemeral: m.ephemeral, tool: m.tool,
      createdAt: m.created_at, searchContent: messageSearchText(m.content, m.ephemeral), searchNear: "",
    }));
  for (const rows of chunked(messageRows, 9)) statements.push(db.insert(messages).values(rows));
  if (messageRows.length > 0) statements.push(indexNeighbours(deps, mindId));
  for (const s of sessionLines) {
    const through = messageLines.filter((m) => m.session_id === s.id && m.id <= s.extracted_through_message_id).length;
    if (through === 0) continue;
    const sessionId = ids.get(s.id)!;
    statements.push(
      db
        .update(sessions)
        .set({
          extractedThroughMessageId: sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${sessionId} order by ${messages.id} limit 1 offset ${through - 1})`,
        })
        .where(and(eq(sessions.id, sessionId), eq(sessions.mindId, mindId))),
    );
  }

  const noteRows = byType(lines, "note").map((n) => ({
    ...noteValues(
      { mindId, agent: n.agent, text: n.text, sessionId: known(n.session_id), categoryHint: n.category_hint, source: n.source, confidence: n.confidence },
      n.created_at,
      n.context,
    ),
  }));
  for (const rows of chunked(noteRows, 14)) statements.push(db.insert(notes).values(rows));

  const coldRows = byType(lines, "cold_memory").map((c) => ({
    mindId, agent: c.agent, text: c.text, version: c.version, writeId: newId("cw"), updatedAt: c.updated_at,
  }));
  for (const rows of chunked(coldRows, 6)) statements.push(db.insert(coldMemory).values(rows));
  const versionRows = byType(lines, "cold_version").map((v) => ({
    mindId, agent: v.agent, version: v.version, text: v.text, author: v.author, consolidationId: v.consolidation_id, createdAt: v.created_at,
  }));
  for (const rows of chunked(versionRows, 7)) statements.push(db.insert(coldVersions).values(rows));

  // Last, so a failed import leaves the mind's settings as they were.
  statements.push(
    db
      .update(minds)
      .set({ locale: header.mind.locale, retentionHours: header.mind.retention_hours, settings: resolveSettings(header.mind.settings) })
      .where(eq(minds.id, mindId)),
  );

  const counts: ImportCounts = {
    memories: memoryRows.length,
    memory_history: historyRows.length,
    notes: noteRows.length,
    cold_memory: coldRows.length,
    cold_versions: versionRows.length,
    chats: chatRows.length,
    sessions: sessionRows.length,
    messages: messageRows.length,
  };
  return { statements, counts };
}

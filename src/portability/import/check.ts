import { invalid } from "../../errors";
import { newId } from "../../ids";
import { storedRepoPath } from "../../sessions/rows";
import type { ArchiveHeader, ArchiveLine, Line } from "../archive";
import { archiveLineRefs, type LineRef, parseLine } from "./archive-lines";
import { type Pause, yieldToOthers } from "./pace";

// The first pass of an import: every line is parsed and checked, and the archive is checked
// as a whole (uniqueness, references, cold versions) before anything is written. What the
// write pass needs is kept small: where each line sits, the fresh ids, the cursors.

type RowType = Exclude<ArchiveLine["type"], "header">;

export interface CheckedArchive {
  header: ArchiveHeader;
  lines: Record<RowType, LineRef[]>;
  /** Old id → fresh id, for memories, chats and sessions. */
  ids: Map<string, string>;
  /** Per old session id: how many of its messages the extraction had already read. */
  extracted: Map<string, number>;
  /** Each message line's session (old id) and whether it is ephemeral, in the order of `lines.message`. */
  messages: { session: string; ephemeral: boolean }[];
}

/** The history actions that remove a memory: by a person or agent, by retention, past its expiry. */
const DELETIONS = ["delete", "retention", "expired"];

/** Lines, or bytes of lines, between two pauses, so other requests keep being served. */
const LINES_PER_PAUSE = 50;
const BYTES_PER_PAUSE = 64 * 1024;

type RowLine = Exclude<ArchiveLine, { type: "header" }>;

/** What the lines tell as they are read, for the checks across lines once all are read. */
interface Reading {
  lines: Record<RowType, LineRef[]>;
  ids: Map<string, string>;
  messages: CheckedArchive["messages"];
  /** First line of each unique thing, to name both lines of a duplicate. */
  seen: Map<string, number>;
  sessionChats: Map<string, { chat: string; line: number; through: number }>;
  chatIds: Set<string>;
  chatActive: { chat: string; session: string; line: number }[];
  /** Per session: its messages' ids in order, and the line of its first message. */
  sessionMessages: Map<string, number[]>;
  messageSessionLine: Map<string, number>;
  cold: Map<string, { version: number; line: number }>;
  /** Per memory id named by history: its first history line and the last action recorded. */
  history: Map<string, { line: number; last: string }>;
  /** Per agent: its latest cold version and that version's line. */
  coldVersions: Map<string, { max: number; line: number }>;
}

/** Parses and checks the whole archive; the first problem is a 400 naming its line. */
export async function checkArchive(bytes: Uint8Array, pause: Pause = yieldToOthers): Promise<CheckedArchive> {
  const reading = startReading();
  let header: ArchiveHeader | undefined;
  for await (const ref of pacedLineRefs(bytes, pause)) {
    const line = parseLine(bytes, ref, true);
    if ((line.type === "header") !== (header === undefined)) {
      throw invalid(`line ${ref.number}: the header must be the first line, and only the first`);
    }
    if (line.type === "header") {
      header = line;
      continue;
    }
    readLine(reading, line, ref.number);
    reading.lines[line.type].push(ref);
  }
  if (!header) throw invalid("the archive is empty");
  checkAcrossLines(reading);
  const { lines, ids, messages } = reading;
  return { header, lines, ids, extracted: extractedCounts(reading), messages };
}

function startReading(): Reading {
  return {
    lines: { memory: [], memory_history: [], note: [], cold_memory: [], cold_version: [], chat: [], session: [], message: [] },
    ids: new Map(),
    messages: [],
    seen: new Map(),
    sessionChats: new Map(),
    chatIds: new Set(),
    chatActive: [],
    sessionMessages: new Map(),
    messageSessionLine: new Map(),
    cold: new Map(),
    history: new Map(),
    coldVersions: new Map(),
  };
}

/** The archive's lines, with a pause every LINES_PER_PAUSE lines or BYTES_PER_PAUSE bytes. */
async function* pacedLineRefs(bytes: Uint8Array, pause: Pause): AsyncGenerator<LineRef> {
  let since = 0;
  for (const ref of archiveLineRefs(bytes)) {
    since += ref.end - ref.start;
    if (ref.number % LINES_PER_PAUSE === 0 || since >= BYTES_PER_PAUSE) {
      since = 0;
      await pause();
    }
    yield ref;
  }
}

/** Refuses a second line of the same unique thing, naming both lines. */
function once(reading: Reading, what: string, unique: string, line: number): void {
  const first = reading.seen.get(unique);
  if (first !== undefined) throw invalid(`line ${line}: ${what} repeats line ${first}`);
  reading.seen.set(unique, line);
}

function readLine(reading: Reading, line: RowLine, n: number): void {
  switch (line.type) {
    case "memory":
      return readMemory(reading, line, n);
    case "memory_history": {
      const seenBefore = reading.history.get(line.memory_id);
      reading.history.set(line.memory_id, { line: seenBefore?.line ?? n, last: line.action });
      return;
    }
    case "note":
      return once(reading, `note id ${line.id}`, `id ${line.id}`, n);
    case "cold_memory":
      once(reading, `cold memory of agent ${line.agent}`, `cold ${line.agent}`, n);
      reading.cold.set(line.agent, { version: line.version, line: n });
      return;
    case "cold_version":
      return readColdVersion(reading, line, n);
    case "chat":
      return readChat(reading, line, n);
    case "session":
      return readSession(reading, line, n);
    case "message":
      return readMessage(reading, line, n);
  }
}

function readMemory(reading: Reading, line: Line<"memory">, n: number): void {
  once(reading, `memory id ${line.id}`, `id ${line.id}`, n);
  // A key has one current statement; the statements it replaced share it.
  const replaced = (line.superseded_by ?? null) !== null;
  if (replaced !== ((line.valid_until ?? null) !== null)) throw invalid(`line ${n}: a replaced memory has both superseded_by and valid_until, a current one neither`);
  if (!replaced) once(reading, `memory ${line.agent}/${line.category}/${line.key}`, `memory ${line.agent}\u0000${line.category}\u0000${line.key}`, n);
  reading.ids.set(line.id, newId("mem"));
}

function readColdVersion(reading: Reading, line: Line<"cold_version">, n: number): void {
  once(reading, `cold version ${line.version} of agent ${line.agent}`, `cold version ${line.agent}\u0000${line.version}`, n);
  const max = reading.coldVersions.get(line.agent);
  if (!max || line.version > max.max) reading.coldVersions.set(line.agent, { max: line.version, line: n });
}

/**
 * A chat as an import writes it. Which mind a Telegram chat talks to is the directory's binding,
 * which an import never moves: an imported Telegram chat becomes an API chat named
 * `telegram:<chat id>`, its tasks and history kept, so only the bound mind holds the bot's chat.
 */
export function importedChat<C extends Pick<Line<"chat">, "kind" | "external_id">>(chat: C): C {
  return chat.kind === "telegram" ? { ...chat, kind: "api", external_id: `telegram:${chat.external_id}` } : chat;
}

function readChat(reading: Reading, line: Line<"chat">, n: number): void {
  once(reading, `chat id ${line.id}`, `id ${line.id}`, n);
  const { kind, external_id } = importedChat(line);
  once(reading, `chat ${kind}/${external_id} of agent ${line.agent}`, `chat ${line.agent}\u0000${kind}\u0000${external_id}`, n);
  reading.ids.set(line.id, newId("chat"));
  reading.chatIds.add(line.id);
  if (line.active_session_id !== null) reading.chatActive.push({ chat: line.id, session: line.active_session_id, line: n });
}

function readSession(reading: Reading, line: Line<"session">, n: number): void {
  once(reading, `session id ${line.id}`, `id ${line.id}`, n);
  once(reading, `task ${line.task_name} of chat ${line.chat_id}`, `task ${line.chat_id}\u0000${storedRepoPath(line.repo_path)}\u0000${line.task_name}`, n);
  reading.ids.set(line.id, newId("ses"));
  reading.sessionChats.set(line.id, { chat: line.chat_id, line: n, through: line.extracted_through_message_id });
}

function readMessage(reading: Reading, line: Line<"message">, n: number): void {
  once(reading, `message id ${line.id}`, `message ${line.id}`, n);
  const ofSession = reading.sessionMessages.get(line.session_id) ?? [];
  if (ofSession.length > 0 && ofSession.at(-1)! > line.id) {
    throw invalid(`line ${n}: the messages of session ${line.session_id} must come in ascending id order`);
  }
  if (ofSession.length === 0) {
    reading.sessionMessages.set(line.session_id, ofSession);
    reading.messageSessionLine.set(line.session_id, n);
  }
  ofSession.push(line.id);
  reading.messages.push({ session: line.session_id, ephemeral: line.ephemeral });
}

/** The checks that need every line read: orphaned history, references, cold versions. */
function checkAcrossLines(reading: Reading): void {
  checkHistory(reading);
  checkSessionReferences(reading);
  checkColdVersions(reading);
}

function checkHistory({ history, ids }: Reading): void {
  for (const [memory, { line, last }] of history) {
    // History outlives a deleted memory, and ends with its deletion; any other is an orphan.
    if (!ids.has(memory) && !DELETIONS.includes(last)) {
      throw invalid(`line ${line}: history of memory ${memory}, which is not in the archive and whose history does not end with its deletion`);
    }
  }
}

/** Each session's chat, each message's session and each chat's active session are in the archive. */
function checkSessionReferences({ sessionChats, chatIds, messageSessionLine, chatActive }: Reading): void {
  for (const [session, { chat, line }] of sessionChats) {
    if (!chatIds.has(chat)) throw invalid(`line ${line}: session ${session} belongs to chat ${chat}, which is not in the archive`);
  }
  for (const [session, line] of messageSessionLine) {
    if (!sessionChats.has(session)) throw invalid(`line ${line}: message of session ${session}, which is not in the archive`);
  }
  for (const { chat, session, line } of chatActive) {
    if (sessionChats.get(session)?.chat !== chat) throw invalid(`line ${line}: the active session ${session} of chat ${chat} is not one of its sessions in the archive`);
  }
}

/** An agent's cold versions come with its cold memory, which is at the latest of them. */
function checkColdVersions({ coldVersions, cold }: Reading): void {
  for (const [agent, { max, line }] of coldVersions) {
    const current = cold.get(agent);
    if (!current) throw invalid(`line ${line}: cold versions of agent ${agent} without its cold_memory line`);
    if (current.version !== max) {
      throw invalid(`line ${current.line}: cold memory of agent ${agent} is at version ${current.version}, but its latest cold_version is ${max}`);
    }
  }
}

/** Per session: how many of its messages in the archive the extraction had read. */
function extractedCounts({ sessionChats, sessionMessages }: Reading): Map<string, number> {
  const extracted = new Map<string, number>();
  for (const [session, { through }] of sessionChats) {
    const read = (sessionMessages.get(session) ?? []).filter((id) => id <= through).length;
    if (read > 0) extracted.set(session, read);
  }
  return extracted;
}

import { invalid } from "../errors";
import { newId } from "../ids";
import { storedRepoPath } from "../sessions/model";
import type { ArchiveHeader, ArchiveLine } from "./archive";
import { archiveLineRefs, type LineRef, parseLine } from "./archive-lines";
import { type Pause, yieldToOthers } from "./import-pace";

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

/** Parses and checks the whole archive; the first problem is a 400 naming its line. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: to be split into named steps
export async function checkArchive(bytes: Uint8Array, pause: Pause = yieldToOthers): Promise<CheckedArchive> {
  const lines: Record<RowType, LineRef[]> = {
    memory: [], memory_history: [], note: [], cold_memory: [], cold_version: [], chat: [], session: [], message: [],
  };
  const ids = new Map<string, string>();
  const messages: CheckedArchive["messages"] = [];
  let header: ArchiveHeader | undefined;
  // First line of each unique thing, to name both lines of a duplicate.
  const seen = new Map<string, number>();
  const once = (what: string, unique: string, line: number) => {
    const first = seen.get(unique);
    if (first !== undefined) throw invalid(`line ${line}: ${what} repeats line ${first}`);
    seen.set(unique, line);
  };
  const sessionChats = new Map<string, { chat: string; line: number; through: number }>();
  const chatIds = new Set<string>();
  const chatActive: { chat: string; session: string; line: number }[] = [];
  const sessionMessages = new Map<string, number[]>();
  const messageSessionLine = new Map<string, number>();
  const cold = new Map<string, { version: number; line: number }>();
  // Per memory id named by history: its first history line and the last action recorded.
  const history = new Map<string, { line: number; last: string }>();
  const coldVersions = new Map<string, { max: number; line: number }>();

  let since = 0;
  for (const ref of archiveLineRefs(bytes)) {
    since += ref.end - ref.start;
    if (ref.number % LINES_PER_PAUSE === 0 || since >= BYTES_PER_PAUSE) {
      since = 0;
      await pause();
    }
    const line = parseLine(bytes, ref, true);
    if ((line.type === "header") !== (header === undefined)) {
      throw invalid(`line ${ref.number}: the header must be the first line, and only the first`);
    }
    const n = ref.number;
    switch (line.type) {
      case "header":
        header = line;
        continue;
      case "memory":
        once(`memory id ${line.id}`, `id ${line.id}`, n);
        once(`memory ${line.agent}/${line.category}/${line.key}`, `memory ${line.agent}\u0000${line.category}\u0000${line.key}`, n);
        ids.set(line.id, newId("mem"));
        break;
      case "memory_history": {
        const seenBefore = history.get(line.memory_id);
        history.set(line.memory_id, { line: seenBefore?.line ?? n, last: line.action });
        break;
      }
      case "note":
        once(`note id ${line.id}`, `id ${line.id}`, n);
        break;
      case "cold_memory":
        once(`cold memory of agent ${line.agent}`, `cold ${line.agent}`, n);
        cold.set(line.agent, { version: line.version, line: n });
        break;
      case "cold_version": {
        once(`cold version ${line.version} of agent ${line.agent}`, `cold version ${line.agent}\u0000${line.version}`, n);
        const max = coldVersions.get(line.agent);
        if (!max || line.version > max.max) coldVersions.set(line.agent, { max: line.version, line: n });
        break;
      }
      case "chat":
        once(`chat id ${line.id}`, `id ${line.id}`, n);
        once(`chat ${line.kind}/${line.external_id} of agent ${line.agent}`, `chat ${line.agent}\u0000${line.kind}\u0000${line.external_id}`, n);
        ids.set(line.id, newId("chat"));
        chatIds.add(line.id);
        if (line.active_session_id !== null) chatActive.push({ chat: line.id, session: line.active_session_id, line: n });
        break;
      case "session":
        once(`session id ${line.id}`, `id ${line.id}`, n);
        once(`task ${line.task_name} of chat ${line.chat_id}`, `task ${line.chat_id}\u0000${storedRepoPath(line.repo_path)}\u0000${line.task_name}`, n);
        ids.set(line.id, newId("ses"));
        sessionChats.set(line.id, { chat: line.chat_id, line: n, through: line.extracted_through_message_id });
        break;
      case "message": {
        once(`message id ${line.id}`, `message ${line.id}`, n);
        const ofSession = sessionMessages.get(line.session_id) ?? [];
        if (ofSession.length > 0 && ofSession.at(-1)! > line.id) {
          throw invalid(`line ${n}: the messages of session ${line.session_id} must come in ascending id order`);
        }
        if (ofSession.length === 0) {
          sessionMessages.set(line.session_id, ofSession);
          messageSessionLine.set(line.session_id, n);
        }
        ofSession.push(line.id);
        messages.push({ session: line.session_id, ephemeral: line.ephemeral });
        break;
      }
    }
    lines[line.type].push(ref);
  }
  if (!header) throw invalid("the archive is empty");

  for (const [memory, { line, last }] of history) {
    // History outlives a deleted memory, and ends with its deletion; any other is an orphan.
    if (!ids.has(memory) && !DELETIONS.includes(last)) {
      throw invalid(`line ${line}: history of memory ${memory}, which is not in the archive and whose history does not end with its deletion`);
    }
  }
  for (const [session, { chat, line }] of sessionChats) {
    if (!chatIds.has(chat)) throw invalid(`line ${line}: session ${session} belongs to chat ${chat}, which is not in the archive`);
  }
  for (const [session, line] of messageSessionLine) {
    if (!sessionChats.has(session)) throw invalid(`line ${line}: message of session ${session}, which is not in the archive`);
  }
  for (const { chat, session, line } of chatActive) {
    if (sessionChats.get(session)?.chat !== chat) throw invalid(`line ${line}: the active session ${session} of chat ${chat} is not one of its sessions in the archive`);
  }
  for (const [agent, { max, line }] of coldVersions) {
    const current = cold.get(agent);
    if (!current) throw invalid(`line ${line}: cold versions of agent ${agent} without its cold_memory line`);
    if (current.version !== max) {
      throw invalid(`line ${current.line}: cold memory of agent ${agent} is at version ${current.version}, but its latest cold_version is ${max}`);
    }
  }
  const extracted = new Map<string, number>();
  for (const [session, { through }] of sessionChats) {
    const read = (sessionMessages.get(session) ?? []).filter((id) => id <= through).length;
    if (read > 0) extracted.set(session, read);
  }
  return { header, lines, ids, extracted, messages };
}

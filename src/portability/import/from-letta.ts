import { z } from "zod";
import { describeZodError, invalid } from "../../errors";
import { COLD_STORED_MAX_CHARS } from "../../notes/cold-store";
import { headingText } from "../../notes/document";
import { DEFAULT_CHAT, DEFAULT_TASK } from "../../sessions/rows";
import { type JsonKind, type PickAnswer, pickedValues } from "./json-scan";
import type { JsonPath } from "./json-tokens";
import { type Agent, agentAt, type Layout, listOf, readAgents } from "./letta-agents";
import { type Conversation, lettaMessage, messageLine } from "./letta-messages";
import { type Pause, yieldToOthers } from "./pace";
import { ArchiveOutput, factProblem, type PeerFact, PeerMemories, peerHeader, peerTags, peerTimeField, refusedAt } from "./peer-lines";

// A Letta Agent File becomes edgemind's rows: each agent an agent namespace named after it, its
// memory blocks the sections of that namespace's cold memory (a `## label` each), its messages
// a session of the namespace's chat, and archival passages, where a file carries them, memories.
// Agent File v2 (agents, groups, blocks, files, sources, tools, mcp_servers) and v1 (one agent
// with its core_memory and messages) are read; a file holding the document as one JSON string
// (three of the agent-file repository's do) is read from that string.
//
// The file is walked twice, never parsed whole: first the agents' names and blocks (small),
// then their messages and passages, each written as it is read.

const WHAT = "Letta agent file";
const HISTORY = ["messages", "passages"];
/** Messages or passages between two pauses. */
const PER_PAUSE = 50;

/**
 * An archival passage as Letta's API lists it (Passage: text, tags, metadata, created_at). The
 * Agent File schema carries none yet; an agent's `passages` list in a file is read as such.
 */
const passage = z.object({
  id: z.string().nullish(),
  text: z.string(),
  tags: z.array(z.string()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  created_at: peerTimeField,
});

/** A Letta Agent File as the lines of edgemind's archive; a malformed part is a 400 naming its path and line. */
export async function fromLetta(file: Uint8Array, now: string, pause: Pause = yieldToOthers): Promise<Uint8Array> {
  const { bytes, what } = unwrapped(file);
  const out = new ArchiveOutput(what);
  out.add(peerHeader("letta", now));
  const { agents, layout } = readAgents(bytes, what);
  const conversations = await writeHistory({ bytes, what, layout, agents, out, now }, pause);
  for (const [i, agent] of agents.entries()) {
    writeCold(out, agent, i, now, what);
    const conversation = conversations.get(i);
    if (conversation) writeSession(out, agent, i, conversation);
  }
  return out.finish();
}

/** The document, and the name it is refused under: a file holding it as one JSON string is read from that string. */
function unwrapped(file: Uint8Array): { bytes: Uint8Array; what: string } {
  let at = file[0] === 0xef ? 3 : 0;
  while (file[at] === 0x20 || file[at] === 0x0a || file[at] === 0x0d || file[at] === 0x09) at++;
  if (file[at] !== 0x22) return { bytes: file, what: WHAT };
  const [inner] = pickedValues(file, () => "value", WHAT);
  return { bytes: new TextEncoder().encode(inner!.value as string), what: `${WHAT} (the JSON text its one string holds)` };
}

/** The second walk: each message and passage of each agent. */
function historyPick(layout: Layout): (path: JsonPath, kind: JsonKind) => PickAnswer {
  return (path, kind) => {
    if (path.length === 0 || (layout === "v2" && path[0] === "agents" && path.length <= 2)) return "walk";
    const at = agentAt(path, layout);
    if (!at || !HISTORY.includes(at.rest[0] as string)) return "skip";
    return at.rest.length === 1 ? listOf(kind, String(at.rest[0])) : at.rest.length === 2 ? "value" : "skip";
  };
}

/** The file as the second walk reads it, and where its lines go. */
interface HistoryWalk {
  bytes: Uint8Array;
  what: string;
  layout: Layout;
  agents: Agent[];
  out: ArchiveOutput;
  now: string;
}

/** The second walk: messages and passages written as they are read. Answers each agent's conversation. */
async function writeHistory(walk: HistoryWalk, pause: Pause): Promise<Map<number, Conversation>> {
  const { bytes, what, layout, agents, out, now } = walk;
  const conversations = new Map<number, Conversation>();
  const memories = new PeerMemories("import:letta", now);
  let messageId = 0;
  let read = 0;
  for (const { path, value, line } of pickedValues(bytes, historyPick(layout), what)) {
    const { index, rest } = agentAt(path, layout)!;
    const agent = agents[index]!;
    if (rest[0] === "messages") {
      const parsed = lettaMessage.safeParse(value);
      if (!parsed.success) throw refusedAt(what, path, line, describeZodError(parsed.error));
      let conversation = conversations.get(index);
      if (!conversation) conversations.set(index, (conversation = { session: `s${index}`, tools: new Map(), messages: 0, first: null, last: null, lastId: 0 }));
      const message = messageLine(parsed.data, ++messageId, conversation, agent.createdAt ?? now);
      if (typeof message === "string") throw refusedAt(what, path, line, message);
      out.add(message);
    } else {
      const parsed = passage.safeParse(value);
      if (!parsed.success) throw refusedAt(what, path, line, describeZodError(parsed.error));
      const fact = passageFact(parsed.data, agent, now);
      if (typeof fact === "string") throw refusedAt(what, path, line, fact);
      for (const l of await memories.lines(fact)) out.add(l);
    }
    if (++read % PER_PAUSE === 0) await pause();
  }
  return conversations;
}

/** An archival passage as a fact of its agent's namespace, or why it cannot be one. */
function passageFact(p: z.output<typeof passage>, agent: Agent, now: string): PeerFact | string {
  const problem = factProblem(p.text);
  if (problem !== null) return `text: ${problem}`;
  const metadata = p.metadata && Object.keys(p.metadata).length > 0 ? JSON.stringify(p.metadata) : "";
  const stated = p.created_at ?? agent.createdAt ?? now;
  return {
    agent: agent.namespace, content: p.text, tags: peerTags(p.tags ?? []), context: [metadata, p.id ? `letta passage ${p.id}` : ""].filter((s) => s !== "").join("\n"),
    stated_at: stated, updated_at: stated, expires_at: null, priority: "normal",
  };
}

/** The agent's blocks as its namespace's cold memory at version 1: a `## label` section each, a heading inside a value made bold so the block stays one section. */
function writeCold(out: ArchiveOutput, agent: Agent, index: number, now: string, what: string): void {
  if (agent.blocks.length === 0) return;
  const sections = agent.blocks.map(({ label, value }) => {
    const lines = value.split(/\r?\n/).map((l) => {
      const heading = headingText(l);
      return heading === null ? l : `**${heading}**`;
    });
    return [`## ${label.replace(/\s+/g, " ").trim() || "block"}`, ...lines].join("\n").trimEnd();
  });
  const text = `${sections.join("\n\n")}\n`;
  if (text.length > COLD_STORED_MAX_CHARS) {
    throw invalid(`${what}: agent ${index} (${agent.name ?? agent.id ?? "unnamed"}): its memory blocks come to ${text.length} characters; cold memory holds at most ${COLD_STORED_MAX_CHARS}`);
  }
  out.add({ type: "cold_memory", agent: agent.namespace, text, version: 1, updated_at: now });
  out.add({ type: "cold_version", agent: agent.namespace, version: 1, text, author: "import:letta", consolidation_id: null, created_at: now });
}

/** The agent's chat (its namespace's default one) and the session its messages went to, read by extraction already (its blocks hold what it learned). */
function writeSession(out: ArchiveOutput, agent: Agent, index: number, c: Conversation): void {
  const first = c.first!;
  out.add({ type: "chat", id: `c${index}`, agent: agent.namespace, kind: "api", external_id: DEFAULT_CHAT, active_session_id: c.session, created_at: first });
  out.add({
    type: "session", id: c.session, chat_id: `c${index}`, repo_path: null, task_name: DEFAULT_TASK, conversation_id: crypto.randomUUID(),
    extracted_through_message_id: c.lastId, created_at: first, last_message_at: c.last,
  });
}

import { z } from "zod";
import { MAX_MESSAGE_CHARS, type Role } from "../../sessions/rows";
import type { Line } from "../archive";
import { cutAt, peerTimeField } from "./peer-lines";

// A Letta message becomes one message of its agent's session. Letta keeps a message's text in
// content parts, an assistant's tool calls beside them (a MemGPT agent answers the user through
// its send_message tool) and a tool's output in tool messages: the text parts, then each call,
// make the message's content; a tool's output is ephemeral, as edgemind keeps tool output.

/**
 * Letta's message roles (MessageRole), each as edgemind says it: a tool's and a function's output
 * are a tool's, an approval is the person's, a summary of evicted messages is the system's.
 */
const ROLES: Record<string, Role> = { user: "user", assistant: "assistant", system: "system", tool: "tool", function: "tool", approval: "user", summary: "system" };

/** The longest tool name a message keeps. */
const TOOL_NAME_MAX = 100;
/** Room kept at the end of a message cut to MAX_MESSAGE_CHARS, for saying how much was left out. */
const CUT_NOTE_ROOM = 60;

const text = z.string().nullish();
const parts = z.array(z.record(z.string(), z.unknown()));
const toolCall = z.object({ id: text, function: z.object({ name: z.string(), arguments: text }).nullish() });

/** A message of an Agent File (v2's MessageSchema, v1's MessageSchema); fields edgemind has no place for are passed by. */
export const lettaMessage = z.object({
  role: z.string(),
  content: z.union([z.string(), parts]).nullish(),
  name: text,
  tool_calls: z.array(toolCall).nullish(),
  tool_call_id: text,
  tool_returns: z.array(z.object({ func_response: z.union([z.string(), parts]).nullish(), stdout: z.array(z.string()).nullish() })).nullish(),
  created_at: peerTimeField,
});
export type LettaMessage = z.output<typeof lettaMessage>;

/** One agent's conversation as its messages are read: the session they go to, and what later messages need. */
export interface Conversation {
  session: string;
  /** The tool each call asked for, by the call's id, to name the tool whose output answers it. */
  tools: Map<string, string>;
  messages: number;
  first: string | null;
  last: string | null;
  lastId: number;
}

/** A message's line, or why it cannot be one (the field named). */
export function messageLine(m: LettaMessage, id: number, conversation: Conversation, fallbackTime: string): Line<"message"> | string {
  const role = ROLES[m.role];
  if (role === undefined) return `role: ${JSON.stringify(m.role)} is not one of Letta's roles (${Object.keys(ROLES).join(", ")})`;
  for (const call of m.tool_calls ?? []) if (call.id && call.function) conversation.tools.set(call.id, call.function.name);
  for (const part of Array.isArray(m.content) ? m.content : []) {
    if (part.type === "tool_call" && typeof part.id === "string" && typeof part.name === "string") conversation.tools.set(part.id, part.name);
  }
  // The call a tool message answers names its tool; v1 files put the agent's name in a tool message's name.
  const tool = role === "tool" ? ((m.tool_call_id ? conversation.tools.get(m.tool_call_id) : undefined) ?? m.name ?? null) : null;
  const at = m.created_at ?? conversation.last ?? fallbackTime;
  conversation.messages++;
  conversation.first ??= at;
  conversation.last = at;
  conversation.lastId = id;
  return {
    type: "message", id, session_id: conversation.session, role, content: boundMessage(contentOf(m, role)),
    ephemeral: role === "tool", tool: tool === null ? null : cutAt(tool, TOOL_NAME_MAX), created_at: at,
  };
}

/** The text parts (an image as `[image]`; reasoning is the model's own and left out), then each tool call; a tool's output from its return when it has no text. */
function contentOf(m: LettaMessage, role: Role): string {
  const parts = typeof m.content === "string" ? [m.content] : (m.content ?? []).map(partText).filter((t) => t !== "");
  const calls = (m.tool_calls ?? []).flatMap((call) => (call.function ? [`→ ${call.function.name}(${call.function.arguments ?? ""})`] : []));
  const content = [...parts, ...calls].join("\n\n");
  if (content !== "" || role !== "tool") return content;
  return (m.tool_returns ?? []).map(({ func_response: output, stdout }) => (typeof output === "string" ? output : output ? output.map(partText).join("\n\n") : (stdout?.join("\n") ?? ""))).join("\n\n");
}

function partText(part: Record<string, unknown>): string {
  const value = (field: string) => (typeof part[field] === "string" ? (part[field] as string) : "");
  switch (part.type) {
    case "text":
      return value("text");
    case "image":
      return "[image]";
    case "tool_call":
      return `→ ${value("name")}(${JSON.stringify(part.input ?? {})})`;
    case "tool_return":
      return value("content");
    default:
      return "";
  }
}

/** A message longer than edgemind keeps is cut, saying how much was left out. */
function boundMessage(content: string): string {
  if (content.length <= MAX_MESSAGE_CHARS) return content;
  const kept = cutAt(content, MAX_MESSAGE_CHARS - CUT_NOTE_ROOM);
  return `${kept}\n… [${content.length - kept.length} more characters not imported]`;
}

// What a model is told about edgemind's memory tools, shared by the Worker's MCP server
// (src/mcp/tools) and the AI SDK tools of this package, so an agent sees the same tools either way.
// Defaults and the memory's field descriptions come from the Worker's own shape (generated).

import { MEMORY_FIELDS, MEMORY_LIMITS } from "./generated/memory-shape.js";

export const TOOL_DESCRIPTIONS = {
  memory_search:
    "Full-text search over structured memories (key, content, tags), Russian and English word forms matched, " +
    "best first; what is valid now, unless as_of or include_superseded ask for the past. Returns each memory's id for memory_forget.",
  memory_store:
    "Store a structured memory under a stable (category, key); storing the same category and key again makes it the newest " +
    "statement, the old one kept as replaced. supersedes replaces another memory; observed_at says when it was stated. " +
    "Your memories are unverified until a person verifies them.",
  memory_recall:
    "Recall structured memories as plain text, each with its date: critical first, then newest; expired and replaced ones " +
    "hidden, unverified ones marked. Use max_tokens to fit a budget.",
  session_context:
    "The context to answer with in a session, as edgemind assembles it for every model turn: the session's recent " +
    "conversation, memories and notes matching `q`, recalled memories and the cold memory document, deduplicated and " +
    "fitted to `max_tokens`. `system` holds the memory as a data block, each memory under the day it was stated " +
    "(unverified and replaced facts marked), `prompt` the " +
    "conversation; `parts` says what was included or dropped, why, and its token cost.",
} as const;

export type ToolName = keyof typeof TOOL_DESCRIPTIONS;

const AS_OF = "Show what was valid at this time instead of now: ISO 8601, or a date such as 2023-05-21";
const INCLUDE_SUPERSEDED = "Also show statements a later one replaced, each with valid_until and superseded_by: the history of a fact";

/** The descriptions of the tools' arguments (those that have one). */
export const ARGUMENT_DESCRIPTIONS = {
  memory_search: {
    q: "Words to look for",
    tag: "Only memories carrying this whole tag",
    limit: `Default ${MEMORY_LIMITS.search.default}, at most ${MEMORY_LIMITS.search.max}`,
    as_of: AS_OF,
    include_superseded: INCLUDE_SUPERSEDED,
  },
  memory_store: {
    key: MEMORY_FIELDS.key.description,
    tags: MEMORY_FIELDS.tags.description,
    expires_at: MEMORY_FIELDS.expires_at.description,
    context: MEMORY_FIELDS.context.description,
  },
  memory_recall: {
    limit: `Most memories to include (default ${MEMORY_LIMITS.recall.default}, at most ${MEMORY_LIMITS.recall.max})`,
    as_of: AS_OF,
    include_superseded: INCLUDE_SUPERSEDED,
  },
  session_context: {
    sessionId: "The session's id, ses_…",
    q: "The message being answered: memories matching it are searched for",
    max_tokens: "Token budget (default 4000)",
    as_of: AS_OF,
    include_superseded: INCLUDE_SUPERSEDED,
  },
} as const satisfies Record<ToolName, Record<string, string>>;

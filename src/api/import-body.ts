import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { FORMAT_MEDIA_TYPES } from "../portability/import/formats";

// What POST /minds/{id}/import takes besides edgemind's archive (which its route declares), for
// the OpenAPI document: a peer's file, described with plain schemas added to the document, since
// a zod schema on a JSON media type would have the router parse and validate the whole body
// before the route reads it as a stream.

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
/** A schema of the document, written out. */
type Schema = NonNullable<NonNullable<Document["components"]>["schemas"]>[string];

const text: Schema = { type: "string" };
const nullableText: Schema = { type: ["string", "null"] };
const time: Schema = { type: ["string", "null"], format: "date-time" };
const metadata: Schema = { type: ["object", "null"], additionalProperties: true };

/** A memory as mem0's get_all lists it (and its platform's export, with `content` for `memory`). */
const mem0Memory: Schema = {
  type: "object",
  properties: {
    id: text,
    memory: { ...text, description: "The memory's text (→ content)" },
    content: { ...text, description: "The text, as the platform's export names it" },
    user_id: { ...nullableText, description: "→ the agent namespace, when agent_id is not given" },
    agent_id: { ...nullableText, description: "→ the agent namespace" },
    run_id: nullableText,
    app_id: nullableText,
    metadata: { ...metadata, description: "→ the memory's context (as JSON)" },
    categories: { type: ["array", "null"], items: text, description: "→ tags" },
    created_at: { ...time, description: "When it was stated (→ created_at)" },
    updated_at: time,
    expiration_date: { ...nullableText, description: "→ expires_at, the next midnight (UTC) after the date" },
  },
};

const mem0Export: Schema = {
  description: "A mem0 export: what get_all returns (v1.1 and later: {results}; v1.0: a bare list) or the platform's JSON export ({memories, total})",
  oneOf: [
    { type: "object", properties: { results: { type: "array", items: mem0Memory } }, required: ["results"] },
    { type: "array", items: mem0Memory },
    { type: "object", properties: { memories: { type: "array", items: mem0Memory }, total: { type: "integer" } }, required: ["memories"] },
  ],
};

const lettaBlock: Schema = { type: "object", properties: { id: text, label: text, value: text }, required: ["label", "value"] };
const lettaAgent: Schema = {
  type: "object",
  properties: {
    id: text,
    name: { ...text, description: "→ the agent namespace" },
    block_ids: { type: "array", items: text, description: "Its memory blocks (→ sections of the namespace's cold memory)" },
    memory_blocks: { type: "array", items: lettaBlock },
    messages: {
      type: "array",
      description: "→ one session of the namespace's default chat; a tool's output is ephemeral",
      items: { type: "object", properties: { role: text, content: {}, tool_calls: {}, tool_call_id: nullableText, created_at: time }, required: ["role"] },
    },
    passages: {
      type: "array",
      description: "Archival passages (not in the published schema yet; read where a file carries them) → memories",
      items: { type: "object", properties: { text, tags: { type: "array", items: text }, metadata, created_at: time }, required: ["text"] },
    },
  },
};

const lettaAgentFile: Schema = {
  description: "A Letta Agent File (.af): v2 (agents, groups, blocks, files, sources, tools, mcp_servers), or v1 (one agent with core_memory and messages)",
  type: "object",
  properties: { agents: { type: "array", items: lettaAgent }, blocks: { type: "array", items: lettaBlock }, tools: { type: "array", items: { type: "object" } } },
};

/** Adds a peer's file, under each media type that takes one, to the import route's body in the document. */
export function declarePeerImports(document: Document): Document {
  const content = document.paths?.["/minds/{id}/import"]?.post?.requestBody;
  if (!content || !("content" in content)) throw new Error("the document has no body for POST /minds/{id}/import");
  content.content[FORMAT_MEDIA_TYPES.mem0] = { schema: mem0Export };
  content.content[FORMAT_MEDIA_TYPES.letta] = { schema: lettaAgentFile };
  content.content["application/json"] = { schema: { description: "A mem0 export or a Letta Agent File: ?format=mem0 or ?format=letta says which", oneOf: [mem0Export, lettaAgentFile] } };
  return document;
}

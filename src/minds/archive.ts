import { z } from "zod";
import { CATEGORIES, MAX_CONTEXT_CHARS, PRIORITIES, SOURCES } from "../memory/model";
import { DEFAULT_AGENT } from "../auth/principal";
import { CHAT_KINDS, MAX_MESSAGE_CHARS, ROLES } from "../sessions/model";
import { LOCALES } from "./minds";
import { mindSettingsSchema } from "./settings";

// The JSONL archive of a mind: a header line, then one line per row. Ids are the exporting
// mind's; an import gives every row a fresh id and keeps the references between them.

export const ARCHIVE_FORMAT = "edgemind-mind";
export const ARCHIVE_VERSION = 1;

const id = z.string().min(1).max(100);
const time = z.string().min(1).max(40);
const text = (max: number) => z.string().max(max);

const header = z.strictObject({
  type: z.literal("header"),
  format: z.literal(ARCHIVE_FORMAT),
  version: z.literal(ARCHIVE_VERSION),
  exported_at: time,
  mind: z.strictObject({
    id,
    name: text(100),
    locale: z.enum(LOCALES),
    retention_hours: z.number().int().positive().nullable(),
    settings: mindSettingsSchema,
  }),
});

const memory = z.strictObject({
  type: z.literal("memory"),
  id,
  agent: text(64),
  category: z.enum(CATEGORIES),
  key: text(100).min(1),
  content: text(8000),
  tags: z.array(text(40)).max(10),
  priority: z.enum(PRIORITIES),
  source: z.enum(SOURCES),
  verified: z.boolean(),
  confidence: z.number().min(0).max(1),
  expires_at: time.nullable(),
  created_at: time,
  updated_at: time,
  context: text(MAX_CONTEXT_CHARS).optional(),
});

const memoryHistory = z.strictObject({
  type: z.literal("memory_history"),
  memory_id: id,
  action: text(20),
  actor: text(200),
  old_content: text(8000).nullable(),
  new_content: text(8000).nullable(),
  at: time,
});

const note = z.strictObject({
  type: z.literal("note"),
  id,
  agent: text(64),
  session_id: id.nullable(),
  text: text(2000).min(1),
  category_hint: text(40).nullable(),
  source: z.enum(SOURCES),
  confidence: z.number().min(0).max(1),
  created_at: time,
  context: text(MAX_CONTEXT_CHARS).optional(),
});

const coldMemory = z.strictObject({
  type: z.literal("cold_memory"),
  agent: text(64),
  text: text(64_000),
  version: z.number().int().min(1),
  updated_at: time,
});

const coldVersion = z.strictObject({
  type: z.literal("cold_version"),
  agent: text(64),
  version: z.number().int().min(1),
  text: text(64_000),
  author: text(300),
  consolidation_id: id.nullable(),
  created_at: time,
});

const chat = z.strictObject({
  type: z.literal("chat"),
  id,
  // Archives written before chats had namespaces hold none: their chats are the default one's.
  agent: text(64).default(DEFAULT_AGENT),
  kind: z.enum(CHAT_KINDS),
  external_id: text(200).min(1),
  active_session_id: id.nullable(),
  created_at: time,
});

const session = z.strictObject({
  type: z.literal("session"),
  id,
  chat_id: id,
  repo_path: text(500).nullable(),
  task_name: text(200).min(1),
  conversation_id: text(100),
  extracted_through_message_id: z.number().int().min(0),
  created_at: time,
  last_message_at: time.nullable(),
});

const message = z.strictObject({
  type: z.literal("message"),
  id: z.number().int().min(1),
  session_id: id,
  role: z.enum(ROLES),
  content: text(MAX_MESSAGE_CHARS),
  ephemeral: z.boolean(),
  tool: text(100).nullable(),
  created_at: time,
});

export const archiveLineSchema = z.discriminatedUnion("type", [
  header,
  memory,
  memoryHistory,
  note,
  coldMemory,
  coldVersion,
  chat,
  session,
  message,
]);

export type ArchiveLine = z.infer<typeof archiveLineSchema>;
export type ArchiveHeader = z.infer<typeof header>;
export type Line<T extends ArchiveLine["type"]> = Extract<ArchiveLine, { type: T }>;

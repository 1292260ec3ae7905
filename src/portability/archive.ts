import { z } from "zod";
import { memoryRecord } from "../memory/fields";
import { MAX_CONTEXT_CHARS, MEMORY_CONTENT_MAX, SOURCES } from "../memory/rows";
import { COLD_STORED_MAX_CHARS } from "../notes/cold-store";
import { NOTE_MAX_CHARS } from "../notes/notes";
import { CHAT_KINDS, MAX_MESSAGE_CHARS, ROLES } from "../sessions/rows";
import { LOCALES } from "../tenancy/minds";
import { agentName, DEFAULT_AGENT } from "../tenancy/principal";
import { mindSettingsSchema } from "../tenancy/settings";

// The JSONL archive of a mind: a header line, then one line per row. Ids are the exporting
// mind's; an import gives every row a fresh id and keeps the references between them.

export const ARCHIVE_FORMAT = "edgemind-mind";
/**
 * 2: a memory's line carries when it was stated and its validity (observed_at, valid_from,
 * valid_until, superseded_by), and replaced statements are lines of their own. Version 1's
 * memories are read as stated when they were created, every one current.
 */
export const ARCHIVE_VERSION = 2;
export const ARCHIVE_VERSIONS_READ = [1, 2] as const;

/** Largest archive an import reads; a longer body is refused before it is read. */
export const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** Most lines an archive may have. */
export const IMPORT_MAX_LINES = 200_000;
/**
 * The longest line in bytes: a cold version as long as edgemind stores, every character escaped
 * as JSON writes a control character (6 bytes, `\u0001`), with its other fields.
 */
export const IMPORT_MAX_LINE_BYTES = 6 * COLD_STORED_MAX_CHARS + 4 * 1024;

const id = z.string().min(1).max(100);
/** Timestamps are ISO 8601 with an offset, as every front accepts and the database stores them. */
const time = z.iso.datetime({ offset: true });
const text = (max: number) => z.string().max(max);
const agent = agentName;

const header = z.strictObject({
  type: z.literal("header"),
  format: z.literal(ARCHIVE_FORMAT),
  version: z.union(ARCHIVE_VERSIONS_READ.map((v) => z.literal(v))),
  exported_at: time,
  mind: z.strictObject({
    id,
    name: text(100),
    locale: z.enum(LOCALES),
    retention_hours: z.number().int().positive().nullable(),
    settings: mindSettingsSchema,
  }),
});

// A memory's line is the memory as stored, in the exporting mind's namespace, not its mind.
// Version 1 wrote none of its times of statement: they are read as memoryOfLine says.
const memory = z.strictObject({
  type: z.literal("memory"),
  ...memoryRecord.omit({ mind_id: true }).shape,
  ...memoryRecord.pick({ observed_at: true, valid_from: true, valid_until: true, superseded_by: true }).partial().shape,
  agent,
});

/** A memory's line with its times of statement: those of a version 1 line are its creation's, and it is current. */
export function memoryOfLine<T extends z.infer<typeof memory>>(line: T) {
  const observed = line.observed_at ?? line.created_at;
  return { ...line, observed_at: observed, valid_from: line.valid_from ?? observed, valid_until: line.valid_until ?? null, superseded_by: line.superseded_by ?? null };
}

const memoryHistory = z.strictObject({
  type: z.literal("memory_history"),
  memory_id: id,
  action: text(20),
  actor: text(200),
  old_content: text(MEMORY_CONTENT_MAX).nullable(),
  new_content: text(MEMORY_CONTENT_MAX).nullable(),
  at: time,
  // Archives written before a history entry recorded its other fields have none.
  changes: z.record(z.string().max(20), z.tuple([z.unknown(), z.unknown()])).nullable().optional(),
});

const note = z.strictObject({
  type: z.literal("note"),
  id,
  agent,
  session_id: id.nullable(),
  text: text(NOTE_MAX_CHARS).min(1),
  category_hint: text(40).nullable(),
  source: z.enum(SOURCES),
  confidence: z.number().min(0).max(1),
  created_at: time,
  context: text(MAX_CONTEXT_CHARS).optional(),
});

const coldMemory = z.strictObject({
  type: z.literal("cold_memory"),
  agent,
  text: text(COLD_STORED_MAX_CHARS),
  version: z.number().int().min(1),
  updated_at: time,
});

const coldVersion = z.strictObject({
  type: z.literal("cold_version"),
  agent,
  version: z.number().int().min(1),
  text: text(COLD_STORED_MAX_CHARS),
  author: text(300),
  consolidation_id: id.nullable(),
  created_at: time,
});

const chat = z.strictObject({
  type: z.literal("chat"),
  id,
  // Archives written before chats had namespaces hold none: their chats are the default one's.
  agent: agent.default(DEFAULT_AGENT),
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

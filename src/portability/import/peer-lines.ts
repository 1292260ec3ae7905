import { z } from "zod";
import { AppError, invalid, tooLarge } from "../../errors";
import { inferCategory, keyForFact } from "../../memory/facts";
import { MEMORY_KEY_MAX, TAGS_MAX } from "../../memory/fields";
import { normalizeTag } from "../../memory/normalize";
import { boundContext, MEMORY_CONTENT_MAX, TAG_MAX } from "../../memory/rows";
import { AGENT_PATTERN, DEFAULT_AGENT } from "../../tenancy/principal";
import { resolveSettings } from "../../tenancy/settings";
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveLine, IMPORT_MAX_BYTES, IMPORT_MAX_LINES, type Line } from "../archive";
import { joinChunks } from "./archive-parts";
import { formatPath, type JsonPath } from "./json-tokens";

// What a peer's file becomes: the lines of edgemind's own archive, so it goes through the one
// import (checked whole, staged, written in slices, undone on failure). The pieces both peers
// share live here: the bounded output, times, namespace names, and a fact become a memory.

/** Text a line of the output is gathered into before it is encoded (a chunk of the output). */
const CHUNK_CHARS = 64 * 1024;

/** The archive a peer's file becomes, line by line, held within the archive's own bounds. */
export class ArchiveOutput {
  private readonly encoder = new TextEncoder();
  private readonly chunks: Uint8Array[] = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private bytes = 0;
  lines = 0;

  constructor(private readonly what: string) {}

  add(line: ArchiveLine): void {
    const text = `${JSON.stringify(line)}\n`;
    this.pending.push(text);
    this.pendingChars += text.length;
    if (++this.lines > IMPORT_MAX_LINES) throw tooLarge(`${this.what}: it comes to more than the ${IMPORT_MAX_LINES} rows one import writes`);
    if (this.pendingChars >= CHUNK_CHARS) this.flush();
  }

  /** The archive's bytes. */
  finish(): Uint8Array {
    this.flush();
    return joinChunks(this.chunks.length > 0 ? this.chunks : [new Uint8Array(0)]);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = this.encoder.encode(this.pending.join(""));
    this.pending = [];
    this.pendingChars = 0;
    this.bytes += chunk.byteLength;
    if (this.bytes > IMPORT_MAX_BYTES) {
      throw tooLarge(`${this.what}: as edgemind's archive it comes to more than the ${IMPORT_MAX_BYTES / 1024 / 1024} MB one import holds`);
    }
    this.chunks.push(chunk);
  }
}

/**
 * The archive's first line for a peer's file. A peer brings no settings of edgemind's: the mind
 * keeps its own (staging writes no settings for a peer's file), so these only fill the header.
 */
export const peerHeader = (name: string, now: string): ArchiveLine => ({
  type: "header",
  format: ARCHIVE_FORMAT,
  version: ARCHIVE_VERSION,
  exported_at: now,
  mind: { id: name, name, locale: "en", retention_hours: null, settings: resolveSettings({}) },
});

/** A refusal naming the file, the value's path and its line. */
export const refusedAt = (what: string, path: JsonPath, line: number, problem: string) =>
  invalid(`${what}: ${formatPath(path) || "the file"} (line ${line}): ${problem}`);

/** A refusal, said as the file not being of the format expected, with what was wrong first. */
export function notThisFormat(err: unknown, expected: string): unknown {
  if (!(err instanceof AppError) || err.code !== "invalid_request") return err;
  return invalid(`${expected} (${err.message})`);
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 time as peers write it, in UTC as the archive stores it: an offset is kept, a time
 * without one is UTC (both peers store UTC), a date alone is its midnight. Null for anything else.
 */
export function peerTime(value: string): string | null {
  const match = DATE_TIME.exec(value.trim());
  if (!match) return null;
  const [, date, time, zone] = match;
  const offset = zone === undefined ? "Z" : /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
  const ms = Date.parse(`${date}T${time ?? "00:00"}${time && time.length === 5 ? ":00" : ""}${offset}`);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** A time field of a peer's entry: a string in ISO 8601, or null; anything else is refused naming it. */
export const peerTimeField = z
  .string()
  .transform((value, ctx) => {
    const time = peerTime(value);
    if (time === null) ctx.addIssue({ code: "custom", message: "not an ISO 8601 date or time" });
    return time ?? "";
  })
  .nullish();

/**
 * Agent namespaces named after a peer's users or agents: lower case, any run of characters a
 * namespace cannot hold as one '-', at most 64; a name two different ids would share gets `-2`,
 * `-3`… so each id keeps a namespace of its own.
 */
export class Namespaces {
  private readonly byId = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** The namespace of a peer's id (the default one for none), named after `name` (the id itself unless given). */
  of(id: string | null | undefined, name = id): string {
    if (id === null || id === undefined || id.trim() === "") return DEFAULT_AGENT;
    const known = this.byId.get(id);
    if (known) return known;
    const base = namespaceName(name || id);
    let unique = base;
    for (let n = 2; this.taken.has(unique); n++) unique = `${base.slice(0, 64 - String(n).length - 1)}-${n}`;
    this.byId.set(id, unique);
    this.taken.add(unique);
    return unique;
  }
}

function namespaceName(id: string): string {
  const plain = id.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const name = plain.replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "").slice(0, 64).replace(/[-_]+$/, "");
  if (AGENT_PATTERN.test(name)) return name;
  return `id-${[...id].reduce((h, c) => (Math.imul(h, 31) + c.codePointAt(0)!) >>> 0, 7).toString(36)}`;
}

/** Tags from a peer's labels: each as a tag is stored (trimmed, lower case, no comma, at most TAG_MAX characters), at most TAGS_MAX. */
export function peerTags(labels: readonly string[]): string[] {
  const tags = labels
    .map((label) => cutAt(normalizeTag(label.replaceAll(",", " ")), TAG_MAX).trim())
    .filter((tag) => tag !== "");
  return [...new Set(tags)].slice(0, TAGS_MAX);
}

/** The text cut to `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A fact a peer kept, as the archive will hold it. */
export interface PeerFact {
  agent: string;
  content: string;
  tags: string[];
  context: string;
  /** When the fact was stated (where it goes: statedTimes). */
  stated_at: string;
  updated_at: string;
  expires_at: string | null;
  priority: "low" | "normal";
}

/** What a peer's fact is refused for, before it becomes a memory: its content, empty or too long. */
export function factProblem(content: string): string | null {
  if (content.trim() === "") return "the text is empty";
  if (content.trim().length > MEMORY_CONTENT_MAX) return `the text is ${content.trim().length} characters; a memory holds at most ${MEMORY_CONTENT_MAX}`;
  return null;
}

/** Where a peer's "when stated" goes, for both peers: the memory's observed_at, and its created_at (the peer stored it then). */
function statedTimes(fact: PeerFact): Pick<Line<"memory">, "created_at" | "observed_at" | "updated_at"> {
  return { created_at: fact.stated_at, observed_at: fact.stated_at, updated_at: fact.updated_at < fact.stated_at ? fact.stated_at : fact.updated_at };
}

/**
 * A peer's facts become memories: each keyed from its words (`keyForFact`), the key unique within
 * the mind (`_2`, `_3`… on a repeat), its category guessed from its wording (`inferCategory`), the
 * guess recorded in the memory's history as an import by `actor`.
 */
export class PeerMemories {
  private readonly keys = new Set<string>();
  private readonly repeats = new Map<string, number>();
  private count = 0;

  constructor(
    private readonly actor: string,
    private readonly importedAt: string,
  ) {}

  async lines(fact: PeerFact): Promise<[Line<"memory">, Line<"memory_history">]> {
    const content = fact.content.trim();
    const category = inferCategory(content);
    const key = this.uniqueKey(await keyForFact(content));
    const id = `m${++this.count}`;
    const memory: Line<"memory"> = {
      type: "memory", id, agent: fact.agent, category, key, content, tags: fact.tags, priority: fact.priority,
      source: "agent", verified: false, confidence: 0.7, expires_at: fact.expires_at, ...statedTimes(fact),
      ...(fact.context.trim() !== "" && { context: boundContext(fact.context) }),
    };
    const history: Line<"memory_history"> = {
      type: "memory_history", memory_id: id, action: "import", actor: this.actor,
      old_content: null, new_content: content, at: this.importedAt, changes: { category: [null, category] },
    };
    return [memory, history];
  }

  private uniqueKey(base: string): string {
    let key = base;
    for (let n = this.repeats.get(base) ?? 1; this.keys.has(key); ) {
      n++;
      this.repeats.set(base, n);
      key = `${base.slice(0, MEMORY_KEY_MAX - String(n).length - 1).replace(/_+$/, "")}_${n}`;
    }
    this.keys.add(key);
    return key;
  }
}

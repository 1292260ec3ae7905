import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { importParts } from "../../db/schema";
import { IMPORT_MAX_BYTES } from "../archive";
import { archiveTooLarge } from "./archive-lines";

// An import's archive between its request and its object: the request stores the body as it
// arrives, in parts of at most PART_BYTES, holding no more than one part in memory; the object
// reads the parts back to check and stage the archive, and drops them once it is staged.

/** An archive up to this size is checked and written while its request waits; a larger one in the background. */
export const IMPORT_INLINE_MAX_BYTES = 1024 * 1024;
/** Bytes of one stored part (D1 holds at most 2 MB in a row). */
export const PART_BYTES = 1024 * 1024;
/** Parts read back per query. */
const PARTS_PER_READ = 4;

/** An archive's body as it arrives: a stream, or bytes already in memory. */
export type ArchiveBody = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Reads a body chunk by chunk, refusing it with a 413 as soon as it passes IMPORT_MAX_BYTES. */
export class ArchiveReader {
  private readonly chunks: AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
  /** Bytes read so far. */
  size = 0;

  constructor(body: ArchiveBody) {
    this.chunks = Symbol.asyncIterator in body ? body[Symbol.asyncIterator]() : body[Symbol.iterator]();
  }

  /** The next chunk, or null at the end of the body. */
  async next(): Promise<Uint8Array | null> {
    const { done, value } = await this.chunks.next();
    if (done) return null;
    this.size += value.byteLength;
    if (this.size > IMPORT_MAX_BYTES) {
      await this.cancel();
      throw archiveTooLarge();
    }
    return value;
  }

  /** Stops reading: the rest of the body is not wanted. */
  async cancel(): Promise<void> {
    try {
      await this.chunks.return?.();
    } catch {
      // A body that failed (past its bound, or the client went away) has nothing left to cancel.
    }
  }

  /** Reads until more than `bytes` have come or the body ends: what came, and whether it ended. */
  async readUpTo(bytes: number): Promise<{ chunks: Uint8Array[]; ended: boolean }> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size <= bytes) {
      const chunk = await this.next();
      if (!chunk) return { chunks, ended: true };
      chunks.push(chunk);
      size += chunk.byteLength;
    }
    return { chunks, ended: false };
  }
}

/** One buffer holding the chunks in order. */
export function joinChunks(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * Stores the chunks already read and the rest of the body as the import's parts, one part of
 * PART_BYTES at a time (as text: D1 hands a BLOB back as an array of numbers, ~30 times slower;
 * a character split between two chunks is carried to the next part). Answers the archive's size.
 */
export async function storeArchive(db: Db, importId: string, head: Uint8Array[], reader: ArchiveReader): Promise<number> {
  const decoder = new TextDecoder();
  let part = 0;
  const buffer = new Uint8Array(PART_BYTES);
  let filled = 0;
  // One part is written while the next is read: at most two parts in memory.
  let writing: Promise<unknown> = Promise.resolve();
  const flush = async (last: boolean) => {
    const text = decoder.decode(buffer.subarray(0, filled), { stream: !last });
    filled = 0;
    await writing;
    if (text.length === 0) return;
    writing = db.$client.prepare("insert into import_parts (import_id, part, data) values (?, ?, ?)").bind(importId, part++, text).run();
    // Its failure is met by the next await on it, not as an unhandled rejection meanwhile.
    writing.catch(() => undefined);
  };
  const add = async (chunk: Uint8Array) => {
    for (let at = 0; at < chunk.byteLength; ) {
      const taken = Math.min(PART_BYTES - filled, chunk.byteLength - at);
      buffer.set(chunk.subarray(at, at + taken), filled);
      filled += taken;
      at += taken;
      if (filled === PART_BYTES) await flush(false);
    }
  };
  for (const chunk of head) await add(chunk);
  try {
    for (let chunk = await reader.next(); chunk; chunk = await reader.next()) await add(chunk);
    await flush(true);
  } finally {
    await writing.catch(() => undefined);
  }
  await writing;
  return reader.size;
}

/** The import's archive read back from its parts, in one buffer (at most IMPORT_MAX_BYTES and a few). */
export async function readArchive(db: Db, importId: string): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (;;) {
    const { results } = await db.$client
      .prepare("select part, data from import_parts where import_id = ? and part >= ? order by part limit ?")
      .bind(importId, parts.length, PARTS_PER_READ)
      .all<{ part: number; data: string }>();
    for (const row of results) {
      if (row.part !== parts.length) return joinChunks(parts);
      parts.push(encoder.encode(row.data));
    }
    if (results.length < PARTS_PER_READ) return joinChunks(parts);
  }
}

/** Drops the import's parts once it has left `checking` (staged, or failed): a checking attempt still reads them. */
export const dropArchive = (db: Db, importId: string) =>
  db.delete(importParts).where(and(
    eq(importParts.importId, importId),
    sql`exists (select 1 from imports where id = ${importId} and state not in ('staging', 'checking'))`,
  ));

/** How many bytes an entry holds, as a cache counts it against its bound. */
export type SizeOf<V> = (key: string, value: V) => number;

/** What a cache holds at most: entries and bytes (keys and values as `sizeOf` counts them). */
export interface LruBounds<V> {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
  sizeOf?: SizeOf<V>;
}

/** Bytes of any plain value, roughly as the isolate holds it: two a character of its JSON, and an entry's own overhead. */
export const approximateBytes = (key: string, value: unknown): number => 64 + 2 * (key.length + (JSON.stringify(value)?.length ?? 0));

/**
 * A bounded cache whose entries expire: at most `maxEntries` and `maxBytes` (the least recently
 * used goes first) and each at most `ttlMs` old, by the time the caller passes. An entry larger
 * than a tenth of the bytes is not kept at all, so no one key can empty the cache. A Map keeps
 * insertion order, so re-inserting on a hit is all the recency it needs; no library is worth this.
 */
export class Lru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; bytes: number }>();
  private held = 0;
  private readonly sizeOf: SizeOf<V>;

  constructor(private readonly bounds: LruBounds<V>) {
    this.sizeOf = bounds.sizeOf ?? approximateBytes;
  }

  /** The live value, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.held -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, now: number): void {
    this.delete(key);
    const bytes = this.sizeOf(key, value);
    if (bytes > this.bounds.maxBytes / 10) return;
    this.entries.set(key, { value, expiresAt: now + this.bounds.ttlMs, bytes });
    this.held += bytes;
    while (this.entries.size > this.bounds.maxEntries || this.held > this.bounds.maxBytes) this.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.held -= entry.bytes;
  }

  /** Drops every entry whose value matches (a revoked key known by its id, not its hash). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes the entries hold, as counted. */
  get bytes(): number {
    return this.held;
  }
}

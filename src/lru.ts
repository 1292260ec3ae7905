/**
 * A bounded cache whose entries expire: at most `maxEntries` (the least recently used goes
 * first) and each at most `ttlMs` old, by the time the caller passes. A Map keeps insertion
 * order, so re-inserting on a hit is all the recency it needs; no library is worth this.
 */
export class Lru<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
  ) {}

  /** The live value, or undefined when absent or expired (an expired entry is dropped). */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every entry whose value matches (a revoked key known by its id, not its hash). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

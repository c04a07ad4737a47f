/**
 * A least-recently-used map bounded by bytes, not entries: frames of a 480x480
 * episode weigh 20x those of Pong, and memory is what must stay bounded.
 */
export class ByteLRU<K, V> {
  // A Map iterates in insertion order; re-inserting on access keeps the oldest first.
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private limit: number,
    private readonly sizeOf: (value: V) => number,
    /** Called with each value evicted to keep the budget (not for `delete`). */
    private readonly onEvict?: (value: V) => void,
  ) {}

  /** The most bytes held (but for one entry bigger than that). */
  get budget(): number {
    return this.limit;
  }

  /** Changes the budget, evicting the least recently used entries down to it. */
  resize(budget: number): void {
    this.limit = budget;
    this.evict();
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Returns the value and marks it most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Returns the value without changing its recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  /**
   * Stores a value as the most recently used, evicting the least recently used
   * until the budget holds. A value bigger than the whole budget is still kept
   * (alone), so the frame on screen can always be cached.
   */
  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.sizeOf(value);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    this.evict();
  }

  /** Drops the least recently used entries until the budget holds, keeping the newest one at least. */
  private evict(): void {
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.limit || this.entries.size === 1) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict?.(entry.value);
    }
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.total -= entry.bytes;
    return true;
  }

  /** Deletes every entry whose key matches. */
  deleteWhere(predicate: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (predicate(key)) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  keys(): IterableIterator<K> {
    return this.entries.keys();
  }
}

/**
 * What a handled update has already done. When an update is handled again after a failure,
 * each step that finished returns its recorded result instead of running again, so a message
 * is appended once, the model answers once and a reply is sent once.
 */
export interface Journal {
  /** Runs `work` the first time `name` is reached; later the recorded result is returned. */
  once<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Like once, but records the result only when `keep` accepts it (a failed call is tried again). */
  onceIf<T>(name: string, work: () => Promise<T>, keep: (result: T) => boolean): Promise<T>;
}

/** A journal over a synchronous key-value store (a Durable Object's storage.kv). */
export function kvJournal(kv: SyncKvStorage, prefix: string): Journal {
  const onceIf = async <T>(name: string, work: () => Promise<T>, keep: (result: T) => boolean): Promise<T> => {
    const key = `${prefix}${name}`;
    const recorded = kv.get<{ value: T }>(key);
    if (recorded !== undefined) return recorded.value;
    const value = await work();
    if (keep(value)) kv.put(key, { value });
    return value;
  };
  return { onceIf, once: (name, work) => onceIf(name, work, () => true) };
}

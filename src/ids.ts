import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** A sortable, unique id with a readable prefix: `mem_01J…`, `mind_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

/** A mind's id as `newId("mind")` makes it: `mind_` and a lower-case ULID (26 letters and digits). */
export const MIND_ID = /^mind_[0-9a-z]{26}$/;

/** Whether a value is a mind's id, checked by its length before its pattern. */
export const isMindId = (value: string) => value.length === 31 && MIND_ID.test(value);

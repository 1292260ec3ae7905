import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** A sortable, unique id with a readable prefix: `mem_01J…`, `mind_01J…`. */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

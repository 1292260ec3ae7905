import type { Db } from "../db/client";
import { type ReplicaReads, readFromReplicas } from "../db/replicas";
import type { Deps } from "../deps";
import { type MindBookmark, type MindSession, mindSessionOver, positionIn } from "../tenancy/bookmarks";
import type { MindContext } from "../tenancy/mind-context";
import type { ChatState } from "./bot-context";

/** The chat's newest position in its mind's database, kept in the chat object's storage. */
const POSITION = "position";

/** Where one update reads its chat's mind: one D1 session, opened for the kept identity's read or for the turn. */
export interface ChatReads {
  /** The database a kept identity is read from: at the chat's position there, else any replica. */
  reader(mindId: string, shard: string): Db;
  /** The turn's mind context, in the session the identity was read in, or one opened now. */
  open(mindContext: MindContext): MindSession;
}

/**
 * One update's reads of the chat's mind. They start at the chat's kept position (its own
 * writes, the appends its session objects made included), so the person always reads what
 * they wrote in the chat from a replica; writes go to the primary. An identity built this
 * update (its rows just written) or a mind since moved starts at the primary instead. Every
 * bookmark the turn reaches is kept at once, so a retried update reads the writes it made.
 */
export function chatReads(deps: Pick<Deps, "shards">, state: ChatState): ChatReads {
  const kept = state.get<MindBookmark>(POSITION) ?? null;
  const opened = new Map<string, ReplicaReads>();
  const keyOf = (mindId: string, shard: string) => `${mindId}|${shard}`;
  return {
    reader(mindId, shard) {
      const reads = readFromReplicas(deps.shards.db(shard), positionIn({ mind: { id: mindId, shard } }, kept) ?? "first-unconstrained");
      opened.set(keyOf(mindId, shard), reads);
      return reads.db;
    },
    open(mindContext) {
      const known = positionIn(mindContext, kept);
      const reads = opened.get(keyOf(mindContext.mind.id, mindContext.mind.shard)) ?? readFromReplicas(mindContext.shard, known ?? "first-primary");
      const keep = (bookmark: string) => state.put(POSITION, { mindId: mindContext.mind.id, shard: mindContext.mind.shard, bookmark } satisfies MindBookmark);
      const session = mindSessionOver(mindContext, reads, known, keep);
      const saw = session.mindContext.sawBookmark;
      const sawBookmark = (bookmark: string) => {
        saw?.(bookmark);
        session.remember();
      };
      return { ...session, mindContext: { ...session.mindContext, sawBookmark } };
    },
  };
}

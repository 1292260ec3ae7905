import { type Column, eq, getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { coldMemory, coldVersions, eventStreams, events, memories, memoryHistory, notes, sessions, webhooks } from "../db/schema";
import type { EventType } from "./types";

// The event rows of a change, as statements of the change's own batch (src/memory/outbox.ts
// describes the change). Each is an insert-select from the rows as the batch leaves them, joined
// with the mind's stream and kept only where a webhook of the mind wants its type: a mind without
// webhooks gets no event; a row the batch did not write is not found, and gets none. Events are numbered in the statement,
// after the stream's last, and the stream moves to its new last in the next statement, so a
// mind's events are in the order D1 ran their writes, with no gap and no number twice.

/** A change as the after-write seam describes it (src/memory/outbox.ts' Change). */
export interface EventChange {
  row: string;
  what: string;
  /** Ids, or SQL selecting ids; a cold memory's write by its write id, a mind by its id. */
  ids: (string | SQL)[];
  /** The fields an update gave. */
  fields?: readonly string[];
  /** Who made it, as history records it (tenancy/principal.ts' actorOf). */
  actor?: string;
}

/** Rows selected for events: columns `type`, `agent` (a namespace, or null), `data` (JSON) and `ord` (their order). */
type EventSource = SQL;

/** The event type of each change that has one. */
const TYPE_OF: Record<string, string> = {
  "memory created": "memory.created",
  "memory updated": "memory.updated",
  "memory deleted": "memory.deleted",
  "memory verified": "memory.verified",
  "memory superseded": "memory.superseded",
  "note created": "note.created",
  "cold updated": "cold.updated",
  "session created": "session.created",
  "session done": "session.done",
  "mind erased": "mind.erased",
} satisfies Record<string, EventType>;

/** Whether a change is told to webhooks: it has an event type ("stored" is created or updated). */
export const hasEvent = (change: Pick<EventChange, "row" | "what">) =>
  `${change.row} ${change.what}` in TYPE_OF || (change.row === "memory" && change.what === "stored");

/** The statements that append a change's events to the mind's stream; none for a change without one. */
export function eventStatements(db: Db, mindId: string, now: string, change: EventChange): BatchItem<"sqlite">[] {
  const source = sourceOf(mindId, now, change);
  return source === null ? [] : appendEvents(db, mindId, now, source);
}

function sourceOf(mindId: string, now: string, change: EventChange): EventSource | null {
  if (!hasEvent(change)) return null;
  const type = TYPE_OF[`${change.row} ${change.what}`] ?? "";
  switch (change.row) {
    case "memory":
      return memorySource(mindId, change);
    case "note":
      return sql`select ${type} as type, ${notes.agent} as agent, json_object('note', ${rowJson(notes, ["text_key"])}) as data, ${notes}.rowid as ord
        from ${notes} where ${notes.mindId} = ${mindId} and ${among(notes.id, change.ids)}`;
    case "session":
      return sql`select ${type} as type, ${sessions.agent} as agent, json_object('session', ${rowJson(sessions)}) as data, ${sessions}.rowid as ord
        from ${sessions} where ${sessions.mindId} = ${mindId} and ${among(sessions.id, change.ids)}`;
    case "cold":
      return coldSource(mindId, change);
    case "mind":
      return sql`select ${type} as type, null as agent, json_object('erased_at', ${now}) as data, 1 as ord
        where not exists (select 1 from ${events} where ${events.mindId} = ${mindId} and ${events.type} = ${type})`;
    default:
      return null;
  }
}

/** Inserts one event per row of `source` after the stream's last, then moves the stream to its new last. */
function appendEvents(db: Db, mindId: string, now: string, source: EventSource): BatchItem<"sqlite">[] {
  // Only types a webhook of the mind wants (enabled or not): a mind whose webhooks want none of a change's gets no row.
  const wanted = sql`exists (select 1 from ${webhooks} w, json_each(w.types) t where w.mind_id = s.mind_id and t.value = src.type)`;
  const numbered = sql`select 'evt_' || lower(hex(randomblob(16))), s.mind_id, s.last + row_number() over (order by src.ord),
    src.type, src.agent, ${now}, src.data
    from ${eventStreams} s, (${source}) src where s.mind_id = ${mindId} and ${wanted}`;
  const newest = sql`coalesce((select max(${events.sequence}) from ${events} where ${events.mindId} = ${mindId}), 0)`;
  return [
    db.insert(events).select(numbered),
    db.update(eventStreams).set({ last: sql`max(${eventStreams.last}, ${newest})` }).where(eq(eventStreams.mindId, mindId)),
  ];
}

/** `column` is one of the ids, named or selected. */
function among(column: Column, ids: (string | SQL)[]): SQL {
  const named = ids.filter((id) => typeof id === "string");
  const selected = ids.filter((id) => typeof id !== "string");
  const parts = [...(named.length > 0 ? [inArray(column, named)] : []), ...selected.map((select) => sql`${column} in (${select})`)];
  return parts.length === 0 ? sql`0` : sql`(${sql.join(parts, sql` or `)})`;
}

/** A row's fields as a JSON object, named as its columns are, its search index copies and `omit` left out. */
function rowJson(table: SQLiteTable, omit: string[] = []): SQL {
  const columns = Object.values(getTableColumns(table)).filter((c) => !c.name.startsWith("search_") && !omit.includes(c.name));
  const members = columns.map((c) => sql`${sql.raw(`'${c.name}'`)}, ${jsonValue(c)}`);
  return sql`json_object(${sql.join(members, sql`, `)})`;
}

const jsonValue = (column: Column): SQL =>
  column.dataType === "boolean" ? sql`json(iif(${column}, 'true', 'false'))` : column.dataType === "json" ? sql`json(${column})` : sql`${column}`;

/** The fields a creation gives a memory: all it shows but its ids and times. */
const MEMORY_FIELDS = Object.values(getTableColumns(memories))
  .map((c) => c.name)
  .filter((name) => !name.startsWith("search_") && !["id", "mind_id", "created_at", "updated_at"].includes(name));

/**
 * A memory's events: its fields after the change (before it, for a deletion, whose statements
 * open the batch) and the names of those that changed, read from the history entry its write
 * left (content, and the fields the entry records), with the fields an update gave besides.
 */
function memorySource(mindId: string, change: EventChange): EventSource {
  const h = sql.raw("h");
  const latest = sql`(select max(${memoryHistory.id}) from ${memoryHistory} where ${memoryHistory.mindId} = ${memories.mindId} and ${memoryHistory.memoryId} = ${memories.id})`;
  const all = sql`json(${JSON.stringify(MEMORY_FIELDS)})`;
  const given = JSON.stringify(change.fields ?? []);
  const fromHistory = sql`(select json_group_array(distinct name) from (
      select 'content' as name where ${h}.old_content is not ${h}.new_content
      union all select key from json_each(coalesce(${h}.changes, '{}'))
      union all select value from json_each(${given}) where value not in ('category', 'key')))`;
  const [type, changed] = ((): [SQL, SQL] => {
    switch (change.what) {
      case "stored":
      case "created":
        return [sql`iif(${h}.action = 'create', 'memory.created', 'memory.updated')`, sql`iif(${h}.action = 'create', ${all}, ${fromHistory})`];
      case "updated":
        return [sql`'memory.updated'`, fromHistory];
      case "verified":
        return [sql`'memory.verified'`, sql`json_array('verified')`];
      case "superseded":
        // A later statement replaced it: the row stays, as a past version, with its validity closed.
        return [sql`'memory.superseded'`, sql`json_array('valid_until', 'superseded_by')`];
      default:
        return [sql`'memory.deleted'`, sql`json_array()`];
    }
  })();
  return sql`select ${type} as type, ${memories.agent} as agent, json_object('memory', ${rowJson(memories)}, 'changed', json(${changed})) as data,
      ${memories}.rowid as ord
    from ${memories} left join ${memoryHistory} ${h} on ${h}.id = ${latest}
    where ${memories.mindId} = ${mindId} and ${among(memories.id, change.ids)}`;
}

/** Who wrote a cold memory, as a receiver reads it: a person, a client (a mind key or OAuth), a consolidation. */
function authorOf(actor: string | undefined): { kind: string; id: string | null } {
  const [kind = "", id = null] = (actor ?? "").split(/:(.*)/s);
  if (kind === "user") return { kind: "person", id };
  if (kind === "key" || kind === "oauth") return { kind: "client", id };
  if (actor === "consolidation" || actor === "system:consolidation") return { kind: "consolidation", id: null };
  return { kind: "system", id };
}

/** A cold memory write's event: its version, its length, who wrote it, and the consolidation it closed. */
function coldSource(mindId: string, change: EventChange): EventSource {
  const author = authorOf(change.actor);
  const consolidation = sql`(select ${coldVersions.consolidationId} from ${coldVersions} where ${coldVersions.mindId} = ${coldMemory.mindId}
    and ${coldVersions.agent} = ${coldMemory.agent} and ${coldVersions.version} = ${coldMemory.version})`;
  return sql`select 'cold.updated' as type, ${coldMemory.agent} as agent, json_object('agent', ${coldMemory.agent}, 'version', ${coldMemory.version},
      'chars', length(${coldMemory.text}), 'updated_at', ${coldMemory.updatedAt},
      'author', json_object('kind', ${author.kind}, 'id', ${author.id}), 'consolidation_id', ${consolidation}) as data, 1 as ord
    from ${coldMemory} where ${coldMemory.mindId} = ${mindId} and ${among(coldMemory.writeId, change.ids)}`;
}

import { env } from "cloudflare:workers";
import { dataOf, everyDatabase } from "./shards";

/** Every table that holds a mind's rows, by its `mind_id` column. */
const TABLES = [
  "minds",
  "mind_keys",
  "mind_usage",
  "memories",
  "memory_history",
  "notes",
  "cold_memory",
  "cold_versions",
  "chats",
  "sessions",
  "messages",
  "consolidations",
  "note_extractions",
  "embeddings",
];

/**
 * What a mind holds, comparable between two minds: rows per table, its settings, its usage
 * counters, its notes' texts and its sessions' extraction state. Ids and times are left out.
 */
export async function mindState(mindId: string) {
  // One batch per database (counts read together, in a few round trips rather than dozens).
  const query = (table: string) => `select count(*) as n from ${table} where ${table === "minds" ? "id" : "mind_id"} = ?`;
  const perDatabase = await Promise.all(
    everyDatabase().map((db) => db.batch<{ n: number }>(TABLES.map((table) => db.prepare(query(table)).bind(mindId)))),
  );
  const counts: Record<string, number> = {};
  TABLES.forEach((table, i) => {
    // The mind's row as the directory holds it (a shard's copy of it is not the mind's data);
    // every other table over every database, so rows left on another shard count too.
    counts[table] = table === "minds" ? perDatabase[0]![i]!.results[0]!.n : perDatabase.reduce((sum, results) => sum + results[i]!.results[0]!.n, 0);
  });
  const data = await dataOf(mindId);
  const [mind, usage, notes, cursors] = await Promise.all([
    env.DB.prepare("select locale, retention_hours, settings from minds where id = ?").bind(mindId).first(),
    data.prepare("select memories, notes, bytes from mind_usage where mind_id = ?").bind(mindId).first(),
    data.prepare("select text, agent, source from notes where mind_id = ? order by text").bind(mindId).all(),
    data
      .prepare(
        `select s.task_name, (select count(*) from messages m where m.session_id = s.id and m.id <= s.extracted_through_message_id) as extracted
     from sessions s where s.mind_id = ? order by s.task_name`,
      )
      .bind(mindId)
      .all(),
  ]);
  return { counts, mind, usage, notes: notes.results, cursors: cursors.results };
}

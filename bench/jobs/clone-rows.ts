// A seeding shortcut for mind-sized data: rows the product's write paths wrote once are cloned
// inside SQLite (through the tables' own triggers, so full-text rows follow), each clone's ids
// suffixed with its number. The clones are the same rows the write paths write, many times over.

/** Rows one INSERT … SELECT writes: a statement stays short whatever the size. */
const CHUNK = 10_000;

export interface CloneOptions {
  /** Columns whose clones get `_<n>` appended, so keys and ids stay unique. */
  suffixed: readonly string[];
  /** Columns set to an SQL expression of the clone's number `n.i` instead (ages spread over a year). */
  set?: Record<string, string>;
}

/** `count` clones of the mind's first row of `table`; an integer primary key takes the next rowid. */
export async function cloneRows(db: D1Database, table: string, mindId: string, count: number, options: CloneOptions): Promise<void> {
  const { results: columns } = await db.prepare(`select name, type, pk from pragma_table_info('${table}')`).all<{ name: string; type: string; pk: number }>();
  const value = (c: { name: string; type: string; pk: number }) => {
    if (options.set?.[c.name]) return options.set[c.name]!;
    if (options.suffixed.includes(c.name)) return `"${c.name}" || '_' || n.i`;
    if (c.pk === 1 && c.type.toUpperCase() === "INTEGER") return "null";
    return `"${c.name}"`;
  };
  for (let from = 1; from <= count; from += CHUNK) {
    await db
      .prepare(
        `with recursive n(i) as (select cast(?2 as integer) union all select i + 1 from n where i < ?3)
         insert into "${table}" (${columns.map((c) => `"${c.name}"`).join(", ")})
         select ${columns.map(value).join(", ")} from "${table}", n
         where mind_id = ?1 and "${table}".rowid = (select min(rowid) from "${table}" where mind_id = ?1)`,
      )
      .bind(mindId, from, Math.min(count, from + CHUNK - 1))
      .run();
  }
}

/** `perSession` messages for every session of the mind, written beside the one a request appended. */
export async function fillMessages(db: D1Database, mindId: string, perSession: number): Promise<void> {
  await db
    .prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?2)
       insert into messages (mind_id, session_id, role, content, ephemeral, tool, created_at, search_content, search_near)
       select s.mind_id, s.id, 'user', 'message ' || n.i, 0, null, s.created_at, 'message', '' from sessions s, n where s.mind_id = ?1`,
    )
    .bind(mindId, perSession)
    .run();
}

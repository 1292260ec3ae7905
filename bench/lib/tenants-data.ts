// One mind's search while the database around it fills with other minds: the shared shape of
// the `tenants` part (node) and its job (workerd).

/** The base texts, each with the stems the product's normalisation gives it; ids 0…n-1. */
export const TENANT_TEXTS_TABLE = "create table bench_texts (id integer primary key, content text not null, stems text not null)";
export const TENANT_TEXT_INSERT = "insert into bench_texts (id, content, stems) values (?, ?, ?)";

/**
 * A mind's memories, generated inside SQLite: memory i is base text (offset + i) mod (text
 * count), key turn_i, tag batch<i % 50>, categories and priorities in turn, one minute apart.
 * The search columns are the stems with the mind's search token (?4, empty when the code has
 * none) in front of each, exactly what storeMemory writes (the job checks rows against it).
 */
export const TENANT_FILL = `with recursive n(i) as (select 0 union all select i + 1 from n where i + 1 < ?1)
insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence,
  expires_at, created_at, updated_at, search_key, search_content, search_tags)
select ?2 || '_' || i, ?3, 'default',
  case i % 5 when 0 then 'fact' when 1 then 'preference' when 2 then 'project' when 3 then 'context' else 'note' end,
  'turn_' || i, t.content, json_array('batch' || (i % 50)),
  case i % 5 when 0 then 'low' when 1 then 'normal' when 2 then 'normal' when 3 then 'high' else 'critical' end,
  'agent', 0, 0.7, null,
  strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' minutes'),
  strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || i || ' minutes'),
  ?4 || 'turn ' || ?4 || i,
  case t.stems when '' then '' else ?4 || replace(t.stems, ' ', ' ' || ?4) end,
  ?4 || 'batch' || (i % 50)
from n join bench_texts t on t.id = (i + ?5) % ?6`;

export interface TenantsInput {
  /** Minds in the database at each measurement, ascending; the measured mind is one of them. */
  minds: number[];
  memoriesPerMind: number;
  texts: string[];
  questions: string[];
  queries: number;
}

export interface TenantsStage {
  minds: number;
  memories: number;
  loadMs: number;
  ms: number[];
  rowsRead: number[];
}

export interface TenantsResult {
  stages: TenantsStage[];
  checkedRows: number;
  sql: string;
}

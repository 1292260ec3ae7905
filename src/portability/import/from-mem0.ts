import { z } from "zod";
import { describeZodError, invalid } from "../../errors";
import { type JsonKind, type PickAnswer, pickedValues } from "./json-scan";
import type { JsonPath } from "./json-tokens";
import { type Pause, yieldToOthers } from "./pace";
import { ArchiveOutput, factProblem, Namespaces, notThisFormat, type PeerFact, PeerMemories, peerHeader, peerTags, peerTime, peerTimeField, refusedAt } from "./peer-lines";

// mem0's memories become edgemind's: the JSON get_all returns (v1.1 and later: {"results": [...]},
// with count, next and previous when paginated; v1.0: a bare list) or the platform's JSON export
// ({"memories": [...], "total": n}). Each entry is one memory, read and written one at a time.

const WHAT = "mem0 export";
const EXPECTED = "expected a mem0 export: a JSON list of memories, or an object with a results (get_all) or memories (the platform's export) list";
/** The lists an object of mem0's holds its memories in. */
const LISTS = ["results", "memories"];
/** Entries between two pauses, so other requests keep being served. */
const ENTRIES_PER_PAUSE = 50;

const DATE_ONLY = /^\s*\d{4}-\d{2}-\d{2}\s*$/;
const id = z.union([z.string(), z.number()]).nullish();
const text = z.string().nullish();

/** One memory as mem0 writes it; fields edgemind has no place for (hash, score, structured_attributes…) are passed by. */
const mem0Entry = z.object({
  id,
  memory: text,
  content: text,
  user_id: id,
  agent_id: id,
  run_id: id,
  session_id: id,
  app_id: id,
  actor_id: id,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  categories: z.array(z.string()).nullish(),
  created_at: peerTimeField,
  updated_at: peerTimeField,
  expiration_date: z
    .string()
    .nullish()
    .transform((value, ctx) => {
      const at = value ? peerTime(value) : null;
      if (value && at === null) ctx.addIssue({ code: "custom", message: "not an ISO 8601 date or time" });
      // mem0 hides a memory after its expiration date: edgemind from the next midnight (UTC) on.
      return at !== null && DATE_ONLY.test(value!) ? new Date(Date.parse(at) + 86_400_000).toISOString() : at;
    }),
  replaced_by: id,
});
type Mem0Entry = z.output<typeof mem0Entry>;

/** What the walk does at each place of a mem0 file: each memory is one value. */
function pickMem0(path: JsonPath, kind: JsonKind): PickAnswer {
  const [first, second] = path;
  if (path.length === 0) return kind === "array" || kind === "object" ? "walk" : { refuse: "the file is neither a JSON list nor an object" };
  if (path.length === 1) {
    if (typeof first === "number") return "value";
    if (!LISTS.includes(first!)) return "skip";
    return kind === "array" ? "walk" : { refuse: `${first} must be a list of memories` };
  }
  return path.length === 2 && typeof second === "number" ? "value" : "skip";
}

/** A mem0 file as the lines of edgemind's archive; a malformed entry is a 400 naming its path and line. */
export async function fromMem0(bytes: Uint8Array, now: string, pause: Pause = yieldToOthers): Promise<Uint8Array> {
  const out = new ArchiveOutput(WHAT);
  out.add(peerHeader("mem0", now));
  const namespaces = new Namespaces();
  const memories = new PeerMemories("import:mem0", now);
  let entries = 0;
  let lists = 0;
  const sawList = (path: JsonPath, kind: JsonKind) => {
    if (path.length === 1 && typeof path[0] === "string" && LISTS.includes(path[0]) && kind === "array") lists++;
    if (path.length === 0 && kind === "array") lists++;
    return pickMem0(path, kind);
  };
  try {
    for (const { path, value, line } of pickedValues(bytes, sawList, WHAT)) {
      const parsed = mem0Entry.safeParse(value);
      if (!parsed.success) throw refusedAt(WHAT, path, line, describeZodError(parsed.error));
      const fact = mem0Fact(parsed.data, namespaces, now);
      if (typeof fact === "string") throw refusedAt(WHAT, path, line, fact);
      for (const l of await memories.lines(fact)) out.add(l);
      if (++entries % ENTRIES_PER_PAUSE === 0) await pause();
    }
  } catch (err) {
    // Before any list of memories, a file that is not JSON or not shaped as mem0's is not mem0's.
    throw lists === 0 ? notThisFormat(err, EXPECTED) : err;
  }
  if (lists === 0) throw invalid(EXPECTED);
  return out.finish();
}

/** One mem0 entry as a fact, or why it cannot be one. */
function mem0Fact(entry: Mem0Entry, namespaces: Namespaces, now: string): PeerFact | string {
  const content = entry.memory ?? entry.content;
  if (content === null || content === undefined) return "memory: required (the memory's text)";
  const problem = factProblem(content);
  if (problem !== null) return `memory: ${problem}`;
  const stated = entry.created_at ?? entry.updated_at ?? now;
  return {
    // An agent namespace holds what one agent wrote: a memory of an agent's is that agent's, any other its user's.
    agent: namespaces.of(entry.agent_id?.toString() ?? entry.user_id?.toString()),
    content,
    tags: peerTags(entry.categories ?? []),
    context: mem0Context(entry),
    stated_at: stated,
    updated_at: entry.updated_at ?? stated,
    expires_at: entry.expiration_date,
    // A memory mem0 replaced with another is kept, ranked below the rest.
    priority: entry.replaced_by ? "low" : "normal",
  };
}

/** The memory's context: its metadata as JSON, then where mem0 kept it (ids edgemind has no place for). */
function mem0Context(entry: Mem0Entry): string {
  const metadata = entry.metadata && Object.keys(entry.metadata).length > 0 ? JSON.stringify(entry.metadata) : "";
  const where = Object.entries({ id: entry.id, run_id: entry.run_id ?? entry.session_id, app_id: entry.app_id, actor_id: entry.actor_id, replaced_by: entry.replaced_by })
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k} ${v}`);
  return [metadata, where.length > 0 ? `mem0 ${where.join(", ")}` : ""].filter((s) => s !== "").join("\n");
}


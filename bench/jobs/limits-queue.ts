import { HANDLERS, QUEUE_JOBS } from "../../src/jobs";
import { asInvocation, InvocationTally, takePassedLimits } from "../../src/limits/platform";
import { settleMessage } from "../../src/queue/consume";
import { type JobName, runJob } from "../../src/queue/job-runs";
import { produceJob } from "../../src/queue/produce";
import { parseMessage, type WorkMessage } from "../../src/queue/units";
import { call, newTenant, store } from "../../test/helpers";
import { type QueueDeps, workDeps } from "../../test/support/jobs";
import { dataOf, everyDatabase } from "../../test/support/shards";
import type { LimitsInput, ProducerResult, RetentionResult } from "../lib/limits-data";
import { cloneRows } from "./clone-rows";
import { progress } from "./report";
import { figuresOf } from "./tallies";

// The daily and hourly jobs as the Worker runs them: one cron run of a job's producer as one
// invocation, then each message it (or a message's handler) sent delivered as one invocation
// of its own, as test/support/jobs.ts delivers them. Statements count toward the invocation
// open (test/support/deps.ts), sends too (its queue in memory).

type Invocation = { tally: InvocationTally; objectCalls: number };

/** One cron run of the job's producer, as its own invocation. */
async function produce(deps: QueueDeps, job: JobName): Promise<Invocation> {
  const tally = new InvocationTally(`scheduled ${job}`);
  const run = await asInvocation(tally, () => runJob(deps, job, null, (counts, runId) => produceJob(deps, QUEUE_JOBS[job], runId, counts)));
  if (run.error) throw new Error(`the ${job} producer failed: ${run.error}`);
  return { tally, objectCalls: 0 };
}

/** Delivers one message through the consumer's handling, as its own invocation; answers it and the outcome's counts. */
async function deliver(deps: QueueDeps, message: WorkMessage): Promise<{ invocation: Invocation; counts: Record<string, unknown> }> {
  const tally = new InvocationTally(`queue ${message.unit.split(" ")[0]}`);
  const settled = await asInvocation(tally, () => settleMessage(deps, HANDLERS, message, 1));
  if (settled.outcome?.status === "retry") throw new Error(`${message.unit} failed: ${settled.outcome.code}`);
  const counts = settled.outcome?.status === "done" ? (settled.outcome.counts ?? {}) : {};
  return { invocation: { tally, objectCalls: 0 }, counts };
}

/** Every consolidation unit due, as the producer names it, on every database. */
async function dueUnits(): Promise<string[]> {
  const units: string[] = [];
  for (const db of everyDatabase()) {
    const { results } = await db
      .prepare("select 'consolidate ' || mind_id || ' ' || agent as unit from notes where consolidation_id is null group by mind_id, agent")
      .all<{ unit: string }>();
    units.push(...results.map((r) => r.unit));
  }
  return units;
}

/**
 * One hourly consolidation producer over `size` namespaces with a waiting note each (one note
 * written through the API, the rest cloned with their own agent), then its continuations: every
 * consolidation unit must be sent once. The units' own work (a model call each) is not run.
 */
export async function measureProducer(input: LimitsInput): Promise<ProducerResult> {
  const seedStart = Date.now();
  const tenant = await newTenant();
  const auth = { token: tenant.token, mind: tenant.mind.id };
  const note = await call("POST", "/notes", { ...auth, body: { text: "Prefers short answers" } });
  if (note.status !== 201) throw new Error(`note: ${note.status} ${note.text}`);
  await cloneRows(await dataOf(tenant.mind.id), "notes", tenant.mind.id, input.size - 1, { suffixed: ["id", "agent"] });
  const due = await dueUnits();
  const seedMs = Date.now() - seedStart;
  progress(`producer: ${due.length} namespaces with a waiting note; seeded in ${(seedMs / 1000).toFixed(0)} s`);

  takePassedLimits();
  const deps = workDeps();
  const start = Date.now();
  const invocations = [await produce(deps, "consolidation")];
  const sent = new Map<string, number>();
  let continuations = 0;
  while (deps.queue.messages.length > 0) {
    const message = deps.queue.messages.shift()!;
    deps.queue.delays.shift();
    const unit = parseMessage(message)?.unit;
    if (!unit) throw new Error(`the producer sent a message that names no unit: ${message.unit}`);
    if (unit.kind !== "produce") {
      sent.set(message.unit, (sent.get(message.unit) ?? 0) + 1);
      continue;
    }
    continuations++;
    invocations.push((await deliver(deps, message)).invocation);
  }
  const wallMs = Date.now() - start;
  return {
    ...figuresOf(invocations),
    due: due.length,
    sent: [...sent.values()].reduce((a, b) => a + b, 0),
    duplicates: [...sent.values()].filter((n) => n > 1).length,
    missing: due.filter((u) => !sent.has(u)).length,
    continuations,
    seedMs,
    wallMs,
    passed: takePassedLimits().map((e) => e.message),
  };
}

const DAY_MS = 86_400_000;
/** The retention mind keeps its notes and history 30 days. */
const RETENTION_HOURS = 30 * 24;

/** Rows due for retention now: memories past their expiry and a week's grace, notes and history past the mind's retention. */
async function dueRows(mindId: string): Promise<RetentionResult["expired"]> {
  const db = await dataOf(mindId);
  const n = async (sql: string, ...binds: unknown[]) => (await db.prepare(sql).bind(...binds).first<{ n: number }>())?.n ?? 0;
  const graceEnd = new Date(Date.now() - 7 * DAY_MS).toISOString();
  const retentionEnd = new Date(Date.now() - RETENTION_HOURS * 3_600_000).toISOString();
  return {
    memories: await n("select count(*) as n from memories where expires_at is not null and expires_at < ?", graceEnd),
    notes: await n("select count(*) as n from notes where mind_id = ? and created_at < ?", mindId, retentionEnd),
    history: await n("select count(*) as n from memory_history where mind_id = ? and at < ?", mindId, retentionEnd),
  };
}

/**
 * The daily retention over a database holding a year of expired rows: `size` memories past
 * their expiry, `size` notes and as many history rows past the mind's 30 days (one of each
 * written through the API, the rest cloned with ages spread over the year), then every unit it
 * sends, going round until nothing is due.
 */
export async function measureRetention(input: LimitsInput): Promise<RetentionResult> {
  const seedStart = Date.now();
  const tenant = await newTenant();
  const mindId = tenant.mind.id;
  const auth = { token: tenant.token, mind: mindId };
  const settings = await call("PATCH", `/minds/${mindId}`, { token: tenant.token, body: { retention_hours: RETENTION_HOURS } });
  if (settings.status !== 200) throw new Error(`retention_hours: ${settings.status} ${settings.text}`);
  await store(auth, { key: "trip", content: "Flies to Lisbon on Friday", expires_at: new Date(Date.now() + DAY_MS).toISOString() });
  const note = await call("POST", "/notes", { ...auth, body: { text: "Prefers window seats" } });
  if (note.status !== 201) throw new Error(`note: ${note.status} ${note.text}`);
  const db = await dataOf(mindId);
  // Ages from 31 days to a year, one per clone in turn: every clone is due.
  const aged = (days: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (${days}) || ' days')`;
  const overYear = aged("31 + n.i % 334");
  await cloneRows(db, "memories", mindId, input.size, { suffixed: ["id", "key"], set: { expires_at: aged("8 + n.i % 357"), updated_at: overYear, created_at: overYear } });
  await cloneRows(db, "notes", mindId, input.size, { suffixed: ["id"], set: { created_at: overYear } });
  await cloneRows(db, "memory_history", mindId, input.size, { suffixed: ["memory_id"], set: { at: overYear } });
  const expired = await dueRows(mindId);
  const seedMs = Date.now() - seedStart;
  progress(`retention: ${JSON.stringify(expired)} due; seeded in ${(seedMs / 1000).toFixed(0)} s`);

  takePassedLimits();
  const deps = workDeps();
  const start = Date.now();
  const invocations = [await produce(deps, "retention")];
  const deleted: Record<string, number> = {};
  while (deps.queue.messages.length > 0) {
    deps.queue.delays.shift();
    const delivered = await deliver(deps, deps.queue.messages.shift()!);
    invocations.push(delivered.invocation);
    for (const [key, value] of Object.entries(delivered.counts)) if (typeof value === "number") deleted[key] = (deleted[key] ?? 0) + value;
    if (invocations.length % 50 === 0) progress(`retention: ${invocations.length} invocations, ${((Date.now() - start) / 1000).toFixed(0)} s`);
  }
  const wallMs = Date.now() - start;
  return { ...figuresOf(invocations), expired, deleted, dueAfter: await dueRows(mindId), seedMs, wallMs, passed: takePassedLimits().map((e) => e.message) };
}

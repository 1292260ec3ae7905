import { sql } from "drizzle-orm";
import { LOGIN_LINK_RETENTION_STEP } from "../auth/login-links";
import { DEFAULT_RETENTION, optimizeDatabase, type RetentionOptions, type RetentionStep } from "../db/prune";
import { DIRECTORY } from "../db/shards";
import { TELEGRAM_RETENTION_STEPS } from "../db/telegram-updates";
import type { Deps, InShard } from "../deps";
import { EVENTS_RETENTION_STEP } from "../events/retention";
import { MEMORY_RETENTION_STEPS } from "../memory/retention";
import { BOOKKEEPING_RETENTION_STEPS, NOTES_RETENTION_STEP } from "../notes/retention";
import { forgetFinishedErasures } from "../portability/erase";
import { IMPORT_RETENTION_STEP } from "../portability/import/imports";
import type { QueueJob, UnitOutcome, UnitSource } from "../queue/handlers";
import { unitText } from "../queue/units";
import { SESSION_RETENTION_STEPS } from "../sessions/retention";
import { stalledErasures } from "./stalled-erasures";
import { stalledImports } from "./stalled-imports";

// Every retention step, in order.
export const RETENTION_STEPS: RetentionStep<InShard>[] = [
  NOTES_RETENTION_STEP,
  ...MEMORY_RETENTION_STEPS,
  ...BOOKKEEPING_RETENTION_STEPS,
  ...SESSION_RETENTION_STEPS,
  LOGIN_LINK_RETENTION_STEP,
  ...TELEGRAM_RETENTION_STEPS,
  IMPORT_RETENTION_STEP,
  EVENTS_RETENTION_STEP,
];

/** A retention unit that runs no step: PRAGMA optimize, once a day on each database. */
const OPTIMIZE = "optimize";

/** In the directory alone: erasures finished long ago are forgotten. */
const FINISHED_ERASURES: RetentionStep<InShard> = { name: "finished_erasures", run: (deps, now) => forgetFinishedErasures(deps, now) };

/** The steps of a database's retention: every step, and in the directory its own. */
const stepsOf = (shard: string): RetentionStep<InShard>[] => (shard === DIRECTORY ? [...RETENTION_STEPS, FINISHED_ERASURES] : RETENTION_STEPS);

/** On every database, one unit per retention step and one for PRAGMA optimize. */
const retentionSteps: UnitSource = {
  page(shard, after) {
    if (after !== null) return null;
    const units = [...stepsOf(shard).map((step) => step.name), OPTIMIZE].map((name) => unitText({ kind: "retention", step: name }));
    return sql`select value as unit from json_each(${JSON.stringify(units)}) order by unit`;
  },
};

/** The daily retention: every mind whose erasure or import stopped halfway, one message each, and the steps of every database. */
export const retentionJob: QueueJob = {
  name: "retention",
  sources: [stalledErasures, stalledImports, retentionSteps],
};

/**
 * One retention step on one database, in at most `maxRounds` rounds (retentionUnitStatements
 * statements); a step that deleted all its rounds allow goes round again.
 */
export async function retentionUnit(deps: Deps, unit: { step: string }, shard: string, options: RetentionOptions = DEFAULT_RETENTION): Promise<UnitOutcome> {
  const inShard = { ...deps, shard: deps.shards.db(shard) };
  if (unit.step === OPTIMIZE) return { status: "done", counts: { optimize: `${shard}: ${await optimizeDatabase(inShard)}` } };
  const step = stepsOf(shard).find((s) => s.name === unit.step);
  // A step this deployment no longer has: nothing to do.
  if (!step) return { status: "done" };
  const deleted = await step.run(inShard, deps.clock.now(), options);
  return { status: "done", counts: { [step.name]: deleted }, more: deleted >= options.batchSize * options.maxRounds };
}

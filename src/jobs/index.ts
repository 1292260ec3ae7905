import type { QueueJob, UnitHandlers } from "../queue/handlers";
import type { JobName } from "../queue/job-runs";
import { continueProducing } from "../queue/produce";
import type { Schedule } from "../queue/schedule";
import { collectionJob, extractUnit } from "./collection";
import { consolidateUnit, consolidationJob } from "./consolidation";
import { embeddingsJob, embedUnit, vectorsUnit } from "./embeddings";
import { retentionJob, retentionUnit } from "./retention";
import { eraseUnit } from "./stalled-erasures";
import { importUnit } from "./stalled-imports";
import { deliverUnit, webhooksJob } from "./webhooks";

/** Cron expression → the jobs it runs, in order. Must match `[triggers] crons` in wrangler.toml. */
export const CRON_JOBS: Record<string, JobName[]> = {
  "0 * * * *": ["consolidation", "embeddings", "webhooks"],
  "30 3 * * *": ["collection", "retention"],
};

/** Each job, as its cron run finds its due units. */
export const QUEUE_JOBS: Record<JobName, QueueJob> = {
  consolidation: consolidationJob,
  collection: collectionJob,
  retention: retentionJob,
  embeddings: embeddingsJob,
  webhooks: webhooksJob,
};

/** What the crons run, handed to the queue's producer. */
export const SCHEDULE: Schedule = { crons: CRON_JOBS, jobs: QUEUE_JOBS };

/** One handler per kind of unit, handed to the queue's consumer. */
export const HANDLERS: UnitHandlers = {
  consolidate: (deps, unit) => consolidateUnit(deps, unit),
  extract: (deps, unit, shard) => extractUnit(deps, unit, shard),
  embed: (deps, unit, shard) => embedUnit(deps, unit, shard),
  vectors: (deps, _unit, shard) => vectorsUnit(deps, shard),
  retention: (deps, unit, shard) => retentionUnit(deps, unit, shard),
  erase: (deps, unit) => eraseUnit(deps, unit),
  import: (deps, unit) => importUnit(deps, unit),
  deliver: (deps, unit, shard) => deliverUnit(deps, unit, shard),
  produce: (deps, unit, shard) => continueProducing(deps, QUEUE_JOBS[unit.job], unit, shard),
};

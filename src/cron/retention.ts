import { LOGIN_LINK_RETENTION_STEP } from "../auth/login-links";
import type { JobCounts } from "../db/job-runs";
import { DEFAULT_RETENTION, optimizeDatabase, type RetentionOptions, type RetentionStep } from "../db/retention";
import { TELEGRAM_RETENTION_STEPS } from "../db/telegram-updates";
import type { Deps } from "../deps";
import { LONG_TERM_RETENTION_STEPS } from "../notes/retention";
import { SESSION_RETENTION_STEPS } from "../sessions/retention";

// Every retention step, in order.
export const RETENTION_STEPS: RetentionStep[] = [
  ...LONG_TERM_RETENTION_STEPS,
  ...SESSION_RETENTION_STEPS,
  LOGIN_LINK_RETENTION_STEP,
  ...TELEGRAM_RETENTION_STEPS,
];

/** The daily retention job: each step's deleted rows are counted, then PRAGMA optimize runs. */
export async function runRetentionJob(deps: Deps, counts: JobCounts, options: RetentionOptions = DEFAULT_RETENTION): Promise<void> {
  const now = deps.clock.now();
  for (const step of RETENTION_STEPS) counts[step.name] = await step.run(deps, now, options);
  counts.optimize = await optimizeDatabase(deps);
}

import { directoryOf } from "../db/client";
import { mindErasures } from "../db/schema";
import type { Deps } from "../deps";
import { AppError, conflict } from "../errors";
import { eq } from "drizzle-orm";
import { beginErasure } from "./erase";
import { getImportJob, IMPORT_STALLED_MS, isImportUnfinished, type ImportJob } from "./import-jobs";
import { mindJobObject, type JobRef, type MindJobObject } from "./job-object";

// The requests' side of the mind's job object: a request does the quick checks and the first
// step itself (so its errors keep their codes), then hands the operation to the object.

/** The namespace of the minds' job objects, for the entry points that start long operations. */
export interface MindJobsDeps {
  mindJobs: DurableObjectNamespace<MindJobObject>;
}

/** Hands the operation to the mind's job object (or wakes it there); 409 when too many wait already. */
export async function startJob(deps: MindJobsDeps, ref: JobRef) {
  const object = mindJobObject(deps.mindJobs, ref.mindId);
  if (!(await object.start(ref))) throw conflict(`the mind has too many operations waiting: try the ${ref.kind} again later`);
  return object;
}

/**
 * The account's import job, as it stands (`getImportJob`). Following a job that stopped moving
 * (its object was lost, or deleted by a deploy) hands it to the mind's job object again, which
 * goes on from the job's progress; the daily retention does the same for jobs nobody follows.
 */
export async function followImportJob(deps: Deps & MindJobsDeps, accountId: string, mindId: string, jobId: string): Promise<ImportJob> {
  const job = await getImportJob(deps, accountId, mindId, jobId);
  const stalled = isImportUnfinished(job.state) && Date.parse(job.updated_at) < deps.clock.now().getTime() - IMPORT_STALLED_MS;
  if (stalled) await startJob(deps, { kind: "import", mindId, jobId }).catch(() => undefined);
  return job;
}

/** How long a request waits for an erasure to finish before answering. */
const ERASE_WAIT_MS = 15_000;

/**
 * Erases the mind (erase.ts): the request marks it erasing and records its counts, the mind's job
 * object erases the rest, this request waiting for it. Answers the counts once all is erased;
 * a run that failed answers 500 and the object finishes it in the background (asking again
 * answers the counts once it has). A finished erasure asked again answers its counts.
 */
export async function eraseMind(deps: Deps & MindJobsDeps, accountId: string, mindId: string): Promise<Record<string, number>> {
  const erasure = await beginErasure(deps, accountId, mindId);
  if (erasure.finishedAt !== null) return erasure.counts;
  const ref: JobRef = { kind: "erase", mindId };
  await (await startJob(deps, ref)).runFor(ref, ERASE_WAIT_MS);
  const now = await directoryOf(deps).select({ finishedAt: mindErasures.finishedAt }).from(mindErasures).where(eq(mindErasures.mindId, mindId)).get();
  if (now && now.finishedAt === null) throw new AppError("internal", "the erasure stopped halfway: the mind is gone for every reader and its data is erased in the background; ask again to see it finished");
  return erasure.counts;
}

import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { readFromReplicas } from "../db/replicas";
import { minds } from "../db/schema";
import { DIRECTORY } from "../db/shards";
import { type Deps, type InShard, objectDeps } from "../deps";
import { AppError, isMindMoving, mindMoving } from "../errors";
import { serialQueue } from "../serial";
import type { MindSettings } from "../tenancy/settings";
import { afterExtraction, INITIAL_COUNTERS, planAppend, planCompletion, type SessionCounters } from "./counters";
import { extractSession, type SessionExtraction } from "./extract-notes";
import { clearEphemeral, writeAppend } from "./history";
import { type AppendResult, type ObjectResult, type SessionState, toSessionState } from "./objects";
import type { NewMessage, SessionTarget } from "./rows";
import type { Dialogue } from "./windows";

/** The bookmark of the database after an object's write, or null. */
interface WrittenAt {
  bookmark: string | null;
}

/** Who appends: the namespace they are limited to (null: any) and the settings of their mind's context. */
export interface AppendCaller {
  agentFilter: string | null;
  settings: MindSettings;
  /** Hand back the dialogue after the append (its LLM window), read in the append's batch. */
  dialogue?: boolean;
}

const COUNTERS_KEY = "counters";
const TARGET_KEY = "target";

const gone = { ok: false, code: "not_found", message: "session not found" } as const;
const moving = () => ({ ok: false, code: "mind_moving", message: mindMoving().message }) as const;

/**
 * One per session (named by its id): the single writer of the session's history and the
 * keeper of its counters. Methods that await D1 run one at a time through `serially`,
 * because every D1 await lets the next call in.
 */
export class SessionObject extends DurableObject<Env> {
  private readonly deps: Deps;
  private readonly serially = serialQueue();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Extraction writes notes; the hourly job embeds them.
    this.deps = objectDeps(env, ctx, { semantic: false });
  }

  /** The session's mind's database: the caller's word for it, or the directory's (an alarm). */
  private async depsOf(target: SessionTarget): Promise<InShard> {
    const shard =
      target.shard ?? (await this.deps.shards.directory.select({ shard: minds.shard }).from(minds).where(eq(minds.id, target.mindId)).get())?.shard;
    return { ...this.deps, shard: this.deps.shards.db(shard ?? DIRECTORY) };
  }

  /**
   * Inserts a message, trims, clears ephemeral output when due, and updates the counters. The
   * mind's settings come from the caller's mind context, so the object never reads the mind.
   * A caller limited to a namespace (`agentFilter`) reaches only a session of that namespace.
   */
  async append(target: SessionTarget, input: NewMessage, caller: AppendCaller): Promise<ObjectResult<AppendResult & WrittenAt & { dialogue: Dialogue | null }>> {
    return this.serially(async () => {
      if (!this.owns(target)) return gone;
      // Through a session, whose bookmark after the batch covers it: the caller hands it on.
      const inShard = await this.depsOf(target);
      const reads = readFromReplicas(inShard.shard, "first-primary");
      const deps = { ...inShard, shard: reads.db };
      const { settings } = caller;
      const plan = planAppend(
        this.counters(),
        { ephemeral: input.ephemeral ?? false, tool: input.tool ?? null, transactionCompleted: input.transaction_completed ?? false },
        settings,
      );
      let written: Awaited<ReturnType<typeof writeAppend>>;
      try {
        written = await writeAppend(deps, target, input, {
          clearEphemeral: plan.clearEphemeral,
          historyCap: settings.history_cap,
          agentFilter: caller.agentFilter,
          settings,
          window: caller.dialogue ? settings.llm_window : null,
        });
      } catch (error) {
        if (isMindMoving(error)) return moving();
        if (error instanceof AppError && error.code === "quota_exceeded") return { ok: false, code: "quota_exceeded", message: error.message };
        throw error;
      }
      if (!written.message) return gone;
      this.ctx.storage.kv.put(TARGET_KEY, { mindId: target.mindId, sessionId: target.sessionId } satisfies SessionTarget);
      this.ctx.storage.kv.put(COUNTERS_KEY, plan.next);
      if (plan.scheduleExtraction) await this.ctx.storage.setAlarm(Date.now());
      return {
        ok: true,
        message: written.message,
        sequence: plan.next.appended,
        cleared: written.cleared,
        trimmed: written.trimmed,
        transaction_completed: input.transaction_completed ?? false,
        state: toSessionState(plan.next),
        bookmark: reads.bookmark(),
        dialogue: written.dialogue,
      };
    });
  }

  /** The answer to "Done?": yes deletes the ephemeral messages and clears the state. `mind`: whether the caller's mind has webhooks. */
  async complete(target: SessionTarget, confirmed: boolean, mind: { webhooks: boolean }): Promise<ObjectResult<{ cleared: number; state: SessionState }>> {
    return this.serially(async () => {
      if (!this.owns(target)) return gone;
      const plan = planCompletion(this.counters(), confirmed);
      let cleared = 0;
      try {
        const writer = { ...(await this.depsOf(target)), mind: { id: target.mindId, shard: target.shard, webhooks: mind.webhooks } };
        if (plan.clearEphemeral) cleared = await clearEphemeral(writer, target);
      } catch (error) {
        if (isMindMoving(error)) return moving();
        throw error;
      }
      if (this.ctx.storage.kv.get(COUNTERS_KEY) !== undefined) this.ctx.storage.kv.put(COUNTERS_KEY, plan.next);
      return { ok: true, cleared, state: toSessionState(plan.next) };
    });
  }

  /** The counters as they stand (initial ones for a session with no message yet). */
  state(): SessionState {
    return toSessionState(this.counters());
  }

  /** Drops all stored state and any alarm; called once the session's rows are deleted. */
  async forget(): Promise<void> {
    await this.serially(async () => {
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
    });
  }

  /** Extracts notes from the messages after the cursor now (the "remember" with no text). */
  async extract(target: SessionTarget): Promise<ObjectResult<{ extraction: SessionExtraction; state: SessionState }>> {
    return this.serially(async () => {
      if (!this.owns(target)) return gone;
      const extraction = await this.runExtraction(target);
      if (extraction.status === "not_found") return gone;
      return { ok: true, extraction, state: toSessionState(this.counters()) };
    });
  }

  /** Extraction is due: extract, and remember it is still due if the cursor could not move. */
  override async alarm(): Promise<void> {
    await this.serially(async () => {
      const target = this.ctx.storage.kv.get<SessionTarget>(TARGET_KEY);
      if (target) await this.runExtraction(target);
    });
  }

  private async runExtraction(target: SessionTarget): Promise<SessionExtraction> {
    // Extraction reads the mind itself (its shard, locale and budget): no lookup here.
    const extraction = await extractSession(this.deps, target);
    if (extraction.status === "not_found") return extraction;
    const next = afterExtraction(this.counters(), extraction, this.deps.clock.now().toISOString());
    // More waiting than one call reads: go on right after this run.
    if (extraction.extracted !== null && extraction.remaining > 0) await this.ctx.storage.setAlarm(Date.now());
    const scheduled = (await this.ctx.storage.getAlarm()) !== null;
    this.ctx.storage.kv.put(COUNTERS_KEY, { ...next, extractionScheduled: scheduled });
    return extraction;
  }

  private counters(): SessionCounters {
    return { ...INITIAL_COUNTERS, ...this.ctx.storage.kv.get<SessionCounters>(COUNTERS_KEY) };
  }

  /** An object serves one session of one mind; a caller naming another is answered "not found". */
  private owns(target: SessionTarget): boolean {
    const stored = this.ctx.storage.kv.get<SessionTarget>(TARGET_KEY);
    return stored === undefined || (stored.mindId === target.mindId && stored.sessionId === target.sessionId);
  }
}

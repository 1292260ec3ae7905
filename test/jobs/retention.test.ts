import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, DEFAULT_RETENTION, retentionUnitStatements } from "../../src/db/prune";
import { newId } from "../../src/ids";
import { QUEUE_JOBS } from "../../src/jobs";
import { runJob } from "../../src/queue/job-runs";
import { produceJob } from "../../src/queue/produce";
import { parseUnit } from "../../src/queue/units";
import { manualClock } from "../support/deps";
import { settleMessage, workDeps } from "../support/jobs";
import { recordingD1 } from "../support/recording-d1";

// A year of memories long past their expiry on one shard: retention deletes them in units of
// one step each, every unit within a bound of statements, going round until nothing is due.
const now = new Date("2032-06-01T03:30:00.000Z");
const mindId = newId("mind");
const ROWS = 365 * 12;

const expiredLeft = async () =>
  (await env.SHARD_1!.prepare("select count(*) as n from memories where mind_id = ?1").bind(mindId).first<{ n: number }>())!.n;

beforeAll(async () => {
  const shard = env.SHARD_1!;
  const at = new Date(now.getTime() - 400 * DAY_MS).toISOString();
  // One memory every two hours of the year before the grace period, each long expired.
  const lastExpiry = now.getTime() - DEFAULT_RETENTION.expiredGraceMs - DAY_MS;
  await shard.batch([
    shard.prepare("insert into accounts (id, name, created_at) values (?1, ?1, ?2)").bind(mindId, at),
    shard.prepare("insert into minds (id, account_id, name, created_at, updated_at) values (?1, ?1, 'year', ?2, ?2)").bind(mindId, at),
    shard
      .prepare(
        `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?3)
         insert into memories (id, mind_id, agent, category, key, content, tags, priority, source, verified, confidence,
                               expires_at, created_at, updated_at, search_key, search_content, search_tags)
         select ?1 || '-' || i, ?1, 'default', 'fact', 'k' || i, 'expired memory ' || i, '[]', 'normal', 'test', 0, 1,
                strftime('%Y-%m-%dT%H:%M:%fZ', ?4 / 1000.0 - i * 7200, 'unixepoch'), ?2, ?2, 'k' || i, 'expired memory ' || i, ''
         from n`,
      )
      .bind(mindId, at, ROWS, lastExpiry),
  ]);
});

afterAll(async () => {
  const shard = env.SHARD_1!;
  await shard.batch([
    shard.prepare("delete from memories where mind_id = ?1").bind(mindId),
    shard.prepare("delete from memory_history where mind_id = ?1").bind(mindId),
    shard.prepare("delete from minds where id = ?1").bind(mindId),
    shard.prepare("delete from accounts where id = ?1").bind(mindId),
  ]);
});

describe("retention's units", () => {
  it("each runs at most its bound of statements, and draining leaves nothing due", async () => {
    expect(await expiredLeft()).toBe(ROWS);
    const log: string[] = [];
    const deps = workDeps({ clock: manualClock(now), wrap: (d1) => recordingD1(d1, log) });
    await runJob(deps, "retention", null, (counts, run) => produceJob(deps, QUEUE_JOBS.retention, run, counts));
    const bound = retentionUnitStatements(DEFAULT_RETENTION);
    expect(bound).toBeLessThanOrEqual(10);
    const rounds: number[] = [];
    while (deps.queue.messages.length > 0) {
      const message = deps.queue.messages.shift()!;
      const unit = parseUnit(message.unit);
      const before = log.length;
      const settled = await settleMessage(deps, message, 1);
      if (unit?.kind !== "retention") continue;
      expect(settled.outcome?.status, message.unit).toBe("done");
      // The unit's own statements, and one for its mark (released, or held while it goes round again).
      expect(log.length - before, `${message.unit} on ${message.shard}`).toBeLessThanOrEqual(bound + 1);
      if (message.shard === "SHARD_1" && unit.step === "memories_long_expired") rounds.push(log.length - before);
    }
    expect(rounds.length).toBeGreaterThanOrEqual(Math.ceil(ROWS / (DEFAULT_RETENTION.batchSize * DEFAULT_RETENTION.maxRounds)));
    expect(await expiredLeft()).toBe(0);
  });
});

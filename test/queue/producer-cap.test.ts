import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids";
import { PAGE, PRODUCER_PAGES } from "../../src/queue/produce";
import { parseUnit, type WorkMessage } from "../../src/queue/units";
import { manualClock } from "../support/deps";
import { type QueueDeps, runCronWith, settleMessage, workDeps } from "../support/jobs";
import { conceptEmbedder, memoryIndex } from "../support/semantic";

// More minds due for a vector than one producer run may page through: the hourly cron sends
// PRODUCER_PAGES pages and hands the rest to continuation messages on the queue.
const DUE = PRODUCER_PAGES * PAGE + 250;
const prefix = newId("cap").replace("_", "-");
const now = new Date("2031-03-01T10:00:00.000Z");

beforeAll(async () => {
  const shard = env.SHARD_1!;
  const at = new Date(now.getTime() - 60_000).toISOString();
  const numbers = "with recursive n(i) as (select 1 union all select i + 1 from n where i < ?3)";
  // The minds as the shard knows them (its writes open), each with one row due for a vector.
  await shard.batch([
    shard.prepare("insert into accounts (id, name, created_at) values (?1, ?1, ?2)").bind(prefix, at),
    shard
      .prepare(`${numbers} insert into minds (id, account_id, name, created_at, updated_at) select ?1 || '-' || printf('%05d', i), ?1, 'm', ?2, ?2 from n`)
      .bind(prefix, at, DUE),
    shard
      .prepare(
        `${numbers} insert into embeddings (kind, row_id, mind_id, state, attempts, next_attempt_at, updated_at)
         select 'memory', ?1 || '-row-' || i, ?1 || '-' || printf('%05d', i), 'pending', 0, ?2, ?2 from n`,
      )
      .bind(prefix, at, DUE),
  ]);
});

afterAll(async () => {
  const shard = env.SHARD_1!;
  await shard.batch([
    shard.prepare("delete from embeddings where mind_id like ?1 || '-%'").bind(prefix),
    shard.prepare("delete from minds where account_id = ?1").bind(prefix),
    shard.prepare("delete from accounts where id = ?1").bind(prefix),
  ]);
});

const ours = (messages: WorkMessage[]) => messages.filter((m) => m.unit.startsWith(`embed ${prefix}-`));
const isContinuation = (m: WorkMessage) => parseUnit(m.unit)?.kind === "produce";

/** Delivers every continuation on the queue, and those they send, leaving the other messages. */
async function deliverContinuations(deps: QueueDeps): Promise<number> {
  let delivered = 0;
  for (let next = deps.queue.messages.findIndex(isContinuation); next >= 0; next = deps.queue.messages.findIndex(isContinuation)) {
    const [message] = deps.queue.messages.splice(next, 1);
    const settled = await settleMessage(deps, message, 1);
    expect(settled.outcome?.status).toBe("done");
    delivered++;
  }
  return delivered;
}

describe("a producer run over a backlog larger than its cap", () => {
  it("sends PRODUCER_PAGES pages, then continuations send every due unit exactly once", async () => {
    const deps = workDeps({ clock: manualClock(now), semantic: { embedder: conceptEmbedder(), index: memoryIndex() } });
    const [, embeddings] = await runCronWith(deps, "0 * * * *");
    expect(embeddings!.job).toBe("embeddings");
    expect(embeddings!.counts).toMatchObject({ pages: PRODUCER_PAGES });
    expect(embeddings!.counts.continued).toBeGreaterThanOrEqual(1);
    const continuations = deps.queue.messages.filter(isContinuation);
    expect(continuations.map((m) => m.shard)).toContain("SHARD_1");
    expect(continuations.every((m) => m.run === embeddings!.id)).toBe(true);
    const first = ours(deps.queue.messages).length;
    expect(first).toBeLessThan(DUE);

    expect(await deliverContinuations(deps)).toBeGreaterThanOrEqual(1);
    const sent = ours(deps.queue.messages).map((m) => m.unit);
    expect(sent).toHaveLength(DUE);
    expect(new Set(sent).size).toBe(DUE);
  });
});

import type { LimitsInput, LimitsResult } from "../lib/limits-data";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

// The default quotas (src/tenancy/settings.ts): 100,000 memories and 100,000 notes a mind.
const SIZE = Number(process.env.BENCH_LIMITS_SIZE ?? 100_000);
const SESSIONS = Number(process.env.BENCH_LIMITS_SESSIONS ?? 2_000);
const MESSAGES_PER_SESSION = 20;
const WEBHOOK_CHANGES = Number(process.env.BENCH_LIMITS_WEBHOOK_CHANGES ?? 10_000);
const WEBHOOKS = 10;
/** Cloudflare's limits per invocation, as src/limits/platform.ts holds them. */
const LIMIT = 1_000;

const seconds = (ms: number) => fmt(ms / 1000, 1);
const within = (n: number) => (n <= LIMIT ? `${fmt(n, 0)} ✓` : `${fmt(n, 0)} ✗`);
const nothingLeft = (left: Record<string, number>) => {
  const rows = Object.entries(left).filter(([, n]) => n > 0);
  return rows.length === 0 ? "nothing ✓" : `${rows.map(([k, n]) => `${k} ${fmt(n, 0)}`).join(", ")} ✗`;
};
const passed = (list: string[]) => (list.length === 0 ? "" : ` (${list.join("; ")})`);

export const limits: Part = {
  name: "limits",
  title: "Per-invocation limits: erasing a mind at its quotas, a producer over 100,000 due units, retention over a year of expired rows, 10,000 changes delivered to 10 webhooks",
  async run(log) {
    const input: LimitsInput = {
      size: SIZE,
      sessions: SESSIONS,
      messagesPerSession: MESSAGES_PER_SESSION,
      webhookChanges: WEBHOOK_CHANGES,
      webhooks: WEBHOOKS,
      bindings: { INVOCATION_GUARD: "1" },
    };
    const { erase, producer, retention, webhooks } = await runJob<LimitsResult>("limits", input, log);
    const exact =
      webhooks.duplicates + webhooks.missing + webhooks.outOfOrder + webhooks.pending === 0 && webhooks.received === webhooks.changes * webhooks.webhooks;
    const rows = [
      [
        `erase a mind: ${fmt(erase.deleted.memories ?? 0, 0)} memories, ${fmt(erase.deleted.notes ?? 0, 0)} notes, ${fmt(erase.deleted.memory_history ?? 0, 0)} history rows, ${fmt(erase.deleted.sessions ?? 0, 0)} sessions, ${fmt(erase.deleted.messages ?? 0, 0)} messages`,
        `${fmt(erase.invocations, 0)} (the request and its call to start the operations object, ${fmt(erase.objectRuns, 0)} operations object runs, ${fmt(erase.sessionObjectCalls, 0)} session object calls)`,
        within(erase.mostD1Queries),
        within(erase.mostSubrequests),
        seconds(erase.wallMs),
        `rows: ${nothingLeft(erase.left)}; session objects' keys ${erase.objectKeys.before} → ${erase.objectKeys.after}${erase.objectKeys.after === 0 ? " ✓" : " ✗"}${passed(erase.passed)}`,
      ],
      [
        `producer: ${fmt(producer.due, 0)} namespaces with a waiting note`,
        `${fmt(producer.invocations, 0)} (the cron run, ${fmt(producer.continuations, 0)} continuations)`,
        within(producer.mostD1Queries),
        within(producer.mostSubrequests),
        seconds(producer.wallMs),
        `${fmt(producer.sent, 0)} sent; ${fmt(producer.duplicates, 0)} twice, ${fmt(producer.missing, 0)} never${producer.duplicates + producer.missing === 0 && producer.sent === producer.due ? " ✓" : " ✗"}${passed(producer.passed)}`,
      ],
      [
        `retention: ${fmt(retention.expired.memories, 0)} expired memories, ${fmt(retention.expired.notes, 0)} notes and ${fmt(retention.expired.history, 0)} history rows past retention`,
        `${fmt(retention.invocations, 0)} (the cron run and its units)`,
        within(retention.mostD1Queries),
        within(retention.mostSubrequests),
        seconds(retention.wallMs),
        `due after: ${nothingLeft({ memories: retention.dueAfter.memories, notes: retention.dueAfter.notes, history: retention.dueAfter.history })}${passed(retention.passed)}`,
      ],
      [
        `webhooks: ${fmt(webhooks.changes, 0)} changes in one mind, ${fmt(webhooks.webhooks, 0)} webhooks`,
        `${fmt(webhooks.invocations, 0)} (queue batches of up to 25 messages: ${fmt(webhooks.wakes, 0)} wakes and the units they sent again)`,
        within(webhooks.mostD1Queries),
        within(webhooks.mostSubrequests),
        seconds(webhooks.wallMs),
        `${fmt(webhooks.received, 0)} received; by webhook-id ${fmt(webhooks.duplicates, 0)} twice, ${fmt(webhooks.missing, 0)} never, ${fmt(webhooks.outOfOrder, 0)} out of order${exact ? " ✓" : " ✗"}; left: ${fmt(webhooks.pending, 0)} events waiting, ${fmt(webhooks.failing, 0)} webhooks failing, ${fmt(webhooks.disabled, 0)} disabled${webhooks.errors.length > 0 ? ` (${webhooks.errors.join("; ")})` : ""}${passed(webhooks.passed)}`,
      ],
    ];
    const markdown = [
      `Goal: no invocation above ${fmt(LIMIT, 0)} D1 queries or ${fmt(LIMIT, 0)} subrequests (Cloudflare's limits per invocation, src/limits/platform.ts), everything finished, nothing left behind. ` +
        `Counted by the per-invocation tallies under INVOCATION_GUARD=1 (a limit passed would fail the invocation, as deployed): each Worker request, Durable Object call and alarm is one invocation, and so are a cron run of a producer and each delivered queue message (as test/support/jobs.ts counts them; deployed, a batch of up to 25 messages shares one). Subrequests: queue sends, fetches and calls to Durable Objects, each call charged to every invocation of its caller's class open when it ends (an alarm waiting behind the object's running one is charged that run's calls too, so the erasure's figure is an upper bound: its code caps a run at 25 slices × 20 session objects = 500). ` +
        `Seeding: a few rows through the API, the bulk cloned from them inside SQLite (bench/jobs/clone-rows.ts, through the tables' own triggers); ${fmt(erase.seedMs / 1000, 0)} s, ${fmt(producer.seedMs / 1000, 0)} s and ${fmt(retention.seedMs / 1000, 0)} s. ` +
        `Erasing: DELETE /minds/:id, then the mind's operations object's alarms until nothing waits in it; no vector index here (no Vectorize binding), so the vectors' records go with the rows. The producer's units (a model call each) are counted as sent, not worked on. Retention: a mind keeping 30 days, ages spread over a year. ` +
        `Webhooks: ${fmt(webhooks.changes, 0)} changes written through the domain's own writes (a memory stored, changed, verified, a note, the memory deleted, in turn; ${fmt(webhooks.seedMs / 1000, 0)} s), each waking the delivery as its answer's waitUntil would; then the queue consumed 25 messages a batch, each batch one invocation as deployed (its messages side by side), receivers standing in for ten https URLs of one public name (looked up through the DNS-over-HTTPS stand-in, its answer kept for its TTL), each checking by webhook-id that it got every event once, in sequence.`,
      "",
      table(["measured", "invocations", "most D1 queries in one", "most subrequests in one", "wall time, s", "finished, left behind"], rows),
      "",
      `Busiest invocations by D1 queries: erase ${erase.busiest}, producer ${producer.busiest}, retention ${retention.busiest}, webhooks ${webhooks.busiest}.`,
    ].join("\n");
    return { json: { input, erase, producer, retention, webhooks }, markdown };
  },
};

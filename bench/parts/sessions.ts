import { loadLocomo } from "../lib/locomo";
import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface Run {
  ms: number[];
  totalMs: number;
}
interface JobResult {
  appends: number;
  perLane: number;
  parallel: number;
  object: Run;
  raw: Run;
  objectParallel: Run;
  rawParallel: Run;
}

const row = (name: string, calls: number, r: Run) => [name, calls, percentile(r.ms, 50), percentile(r.ms, 95), fmt((1000 * r.ms.length) / r.totalMs, 0)];

export const sessions: Part = {
  name: "sessions",
  title: "Appends to a session through its Durable Object",
  async run(log) {
    const texts = loadLocomo().conversations.flatMap((c) => c.turns.map((t) => t.text));
    const r = await runJob<JobResult>("sessions", { texts, appends: 400, parallel: 8 }, log);
    const markdown = [
      "Inside workerd on local D1 and a local Durable Object. Object: `SessionObject.append` over RPC (serialised per session; one D1 batch inserts, trims to `history_cap` 200 and touches the session; counters in the object's storage; extraction alarm every 20 messages, no model configured). Raw: one `insert into messages` statement on D1 (the FTS trigger still runs). Throughput is calls completed per second of wall time.",
      "",
      table(
        ["path", "calls", "p50 ms", "p95 ms", "calls/s"],
        [
          row("session object, 1 session", r.appends, r.object),
          row("raw D1 insert, 1 session", r.appends, r.raw),
          row(`session object, ${r.parallel} sessions in parallel`, r.perLane * r.parallel, r.objectParallel),
          row(`raw D1 insert, ${r.parallel} sessions in parallel`, r.perLane * r.parallel, r.rawParallel),
        ],
      ),
    ].join("\n");
    return { json: r, markdown };
  },
};

import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface Case {
  name: string;
  status: number;
  ms: number[];
}

export const bounds: Part = {
  name: "bounds",
  title: "The largest inputs the Worker accepts, and the first it refuses",
  async run(log) {
    const r = await runJob<{ cases: Case[] }>("bounds", { repeats: 5 }, log);
    const markdown = [
      "Inside workerd on local D1, through the Worker's fetch handler (routing, auth, D1 reads and the work itself). Each case is repeated; the time is the whole request.",
      "",
      table(
        ["request", "status", "p50 ms", "max ms"],
        r.cases.map((c) => [c.name, c.status, percentile(c.ms, 50), percentile(c.ms, 100)]),
      ),
    ].join("\n");
    return { json: r, markdown };
  },
};

import { percentile } from "../lib/metrics";
import type { Part } from "../lib/part";
import { table } from "../lib/table";
import { runJob } from "../lib/workerd";
import { describeRefusals, refusalsThroughWranglerDev } from "./bounds-dev";

interface Case {
  name: string;
  status: number;
  ms: number[];
}

interface LargeImport {
  shards: { searched: string; background: string; inline: string };
  megabytes: number;
  lines: number;
  rows: number;
  acceptedMs: number;
  backgroundTotalMs: number;
  inlineTotalMs: number;
  searchMs: { idle: number[]; background: number[]; inline: number[] };
}

const s = (ms: number) => (ms / 1000).toFixed(1);

export const bounds: Part = {
  name: "bounds",
  title: "The largest inputs the Worker accepts, and the first it refuses",
  async run(log) {
    const r = await runJob<{ cases: Case[]; largeImport: LargeImport }>("bounds", { repeats: 5 }, log);
    const big = r.largeImport;
    const dev = await refusalsThroughWranglerDev(log);
    const search = (name: string, ms: number[]) => [name, ms.length, percentile(ms, 50), percentile(ms, 100)];
    const markdown = [
      "Inside workerd on local D1, through the Worker's fetch handler (routing, auth, D1 reads and the work itself). Each case is repeated; the time is the whole request.",
      "",
      table(
        ["request", "status", "p50 ms", "max ms"],
        r.cases.map((c) => [c.name, c.status, percentile(c.ms, 50), percentile(c.ms, 100)]),
      ),
      "",
      `### Importing an archive just under the bound (${big.megabytes.toFixed(1)} MB, ${big.lines} lines, ${big.rows} rows)`,
      "",
      `Through the API: answered 202 after ${s(big.acceptedMs)} s (the body read as a stream and stored), then checked, staged and ` +
        `written by the mind's operations object, which rests between stretches of work: ${s(big.backgroundTotalMs)} s in all (202 to \`done\`, ` +
        `followed with GET every 0.5 s). The same code run to the end inside the caller without resting, as an import holding its ` +
        `request would be: ${s(big.inlineTotalMs)} s. ` +
        `Meanwhile another client searches another mind (200 memories; \`GET /memory/search\`, one request after another, 20 ms apart). ` +
        `Shards: searched mind ${big.shards.searched}, background import ${big.shards.background}, in-line import ${big.shards.inline}.`,
      "",
      table(
        ["another mind's search", "requests", "p50 ms", "max ms"],
        [search("idle", big.searchMs.idle), search("during the background import", big.searchMs.background), search("during the in-line import", big.searchMs.inline)],
      ),
      "",
      describeRefusals(dev),
    ].join("\n");
    if (dev.restarted > 0) throw new Error(`bounds failed: ${dev.restarted} answers were wrangler's "restarted mid-request" 503\n${markdown}`);
    return { json: { ...r, wranglerDev: dev }, markdown };
  },
};

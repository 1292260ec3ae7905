import type { Part } from "../lib/part";
import { table } from "../lib/table";
import { runJob } from "../lib/workerd";

interface Tally {
  calls: number;
  checked: number;
}

export const faults: Part = {
  name: "faults",
  title: "A fault at every D1 call of moving and erasing a mind",
  async run(log) {
    const r = await runJob<{ tests: Record<string, Tally> }>("faults", { faultSample: null }, log);
    const rows = Object.entries(r.tests).map(([name, t]) => [name, t.calls, t.checked, t.checked === t.calls ? "every call" : "STOPPED EARLY"]);
    if (rows.length < 4) throw new Error(`expected the move and erase fault tests in both modes, got: ${rows.map((row) => row[0]).join(", ") || "none"}`);
    const incomplete = rows.filter((row) => row[3] !== "every call");
    if (incomplete.length > 0) throw new Error(`fault runs stopped early (a check failed): ${incomplete.map((row) => row[0]).join(", ")}`);
    const markdown = [
      "The suite's fault tests (test/minds/move.test.ts, test/minds/write-faults.test.ts) with every D1 call faulted in turn instead of a seeded sample: after each fault the mind reads as before, then a resumed move lands as a fault-free one, an abandoned one leaves the mind as it was, and an erase asked again (or finished by the retention job) leaves nothing.",
      "",
      table(["operation", "D1 calls", "faulted and checked", ""], rows),
    ].join("\n");
    return { json: r, markdown };
  },
};

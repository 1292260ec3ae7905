import type { FaultTally } from "../../test/support/fault-tally";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";
import { runJob } from "../lib/workerd";

// FAULT_JOBS=n runs the fault tests in n shares of the D1 calls at once (call k goes to share
// k mod n), each in its own workerd with fresh storage; together they fault every call.
const JOBS = Math.max(1, Number(process.env.FAULT_JOBS ?? 3));
/** The operations faulted, as the suite's fault tests name them ("move, fault before the call"). */
const OPERATIONS = [
  "extraction",
  "import",
  "erase",
  "move",
  ...["producer", "consumer"].flatMap((side) => ["no model", "scripted model"].map((model) => `consolidation ${side} (${model})`)),
  "daily producer",
  "retention consumer",
];
const MODES = ["before", "after"];

type FaultRun = { tests: Record<string, FaultTally> };

/** The shares' tallies as one per test. */
function combine(runs: FaultRun[]): Record<string, FaultTally> {
  const tests: Record<string, FaultTally> = {};
  for (const run of runs) {
    for (const [name, t] of Object.entries(run.tests)) {
      const sum = (tests[name] ??= { calls: t.calls, taken: 0, checked: 0, failures: [], seconds: 0 });
      if (sum.calls !== t.calls) throw new Error(`${name}: the shares counted ${sum.calls} and ${t.calls} D1 calls`);
      sum.taken += t.taken;
      sum.checked += t.checked;
      sum.failures.push(...t.failures);
      sum.seconds += t.seconds;
    }
  }
  return tests;
}

const EXPECTED = OPERATIONS.flatMap((op) => MODES.map((mode) => `${op}, fault ${mode} the call`));

/** The table and the failures of a run, from its tallies. */
export function renderFaults(tests: Record<string, FaultTally>, jobs: number, seconds: number): string {
  const present = EXPECTED.filter((name) => tests[name]);
  const rows = present.map((name) => {
    const t = tests[name]!;
    return [name.split(",")[0]!, name.includes("before") ? "before" : "after", fmt(t.calls, 0), fmt(t.checked, 0), fmt(t.failures.length, 0), fmt(t.seconds, 0), fmt(t.seconds / Math.max(1, t.taken), 1)];
  });
  const sum = (field: (t: FaultTally) => number) => fmt(present.reduce((n, name) => n + field(tests[name]!), 0), 0);
  const failures = present.flatMap((name) => tests[name]!.failures.map((f) => `${name}, ${f}`));
  return [
    "The suite's fault tests (test/notes/extraction-faults.test.ts, test/portability/write-faults.test.ts, test/portability/move.test.ts, test/notes/consolidation-faults.test.ts, test/queue/queue-faults.test.ts) with every D1 call faulted in turn, in both modes: the call fails before it reaches D1, or D1 does the work and the answer is lost. " +
      "After each fault an extraction is as it was or as a fault-free run leaves it, and the next run ends where that one ends; an import resumes to the whole mind or is undone to the mind as it was (each call faulted twice: resumed, then given up); the mind reads as before a move, then a resumed move lands as a fault-free one and an abandoned one leaves the mind as it was (a move from DB has one call fewer than one from SHARD_1; each fault is taken in the direction its mind goes); an erase asked again (or finished by the retention job) leaves nothing; the hourly consolidation's producer (the cron run: its records, the claim sweep, one marking statement per page) and its consumer (one namespace's message) leave, once a retried message or a later run after the marks expired comes round, every note folded once in one cold version, and two overlapping runs enqueue the namespace at most once; the daily producer (sessions to extract, each database's retention) never enqueues a unit twice in overlapping runs and a later run enqueues what is still due; the retention consumer's due rows are deleted once its retried message or a later run comes round. " +
      `Run in ${jobs} share${jobs > 1 ? "s" : ""} of the calls at once, each in its own workerd; seconds are the shares' time summed.`,
    "",
    table(["operation", "fault", "D1 calls", "faulted and checked", "failures", "seconds", "s per fault"], rows),
    "",
    `${sum((t) => t.checked)} faults checked of ${sum((t) => t.calls)} D1 calls, ${sum((t) => t.failures.length)} failures, ${fmt(seconds, 0)} s in all.`,
    ...failures.slice(0, 30).map((f) => `- ${f}`),
  ].join("\n");
}

export const faults: Part = {
  name: "faults",
  title: "A fault at every D1 call of extraction, import, erasing and moving a mind, and of the consolidation's producer and consumer",
  async run(log) {
    const t0 = Date.now();
    const shares = Array.from({ length: JOBS }, (_, index) => ({ faultSample: null, faultShare: { index, of: JOBS } }));
    // Only the fault tests of each file ("a fault at …"), not their neighbours.
    const runs = await Promise.all(shares.map((input) => runJob<FaultRun>("faults", input, log, ["-t", "a fault at"])));
    const seconds = (Date.now() - t0) / 1000;
    const tests = combine(runs);
    const markdown = renderFaults(tests, JOBS, seconds);
    const missing = EXPECTED.filter((name) => !tests[name]);
    if (missing.length > 0) throw new Error(`fault tests that did not report: ${missing.join(", ")}\n${markdown}`);
    const incomplete = EXPECTED.filter((name) => tests[name]!.checked + tests[name]!.failures.length !== tests[name]!.calls);
    if (incomplete.length > 0) throw new Error(`fault tests that stopped before every call: ${incomplete.join(", ")}\n${markdown}`);
    const failed = EXPECTED.reduce((n, name) => n + tests[name]!.failures.length, 0);
    if (failed > 0) throw new Error(`${failed} faults broke an operation\n${markdown}`);
    return { json: { jobs: JOBS, seconds, tests }, markdown };
  },
};

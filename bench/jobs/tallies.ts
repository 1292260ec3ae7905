import { InvocationTally, openInvocations } from "../../src/limits/platform";
import type { InvocationFigures } from "../lib/limits-data";

// The per-invocation counters of src/limits/platform.ts, read as each invocation ends. Every
// tally is checked once when its invocation settles (asInvocation, and each guarded object's
// call): the bench watches that check. A call to a Durable Object is a subrequest of its caller,
// which the counters do not see from the caller's side: each object call is charged here to its
// caller: every open invocation of the class of the one opened last (over, never under).

export interface Watch {
  /** Every invocation settled since the watch began, with the object calls it made. */
  settled(): { tally: InvocationTally; objectCalls: number }[];
  /** Forgets what was seen. */
  reset(): void;
}

/** An object's RPC method or alarm, as guardObject labels it: `<Class>.<method>`. */
const isObjectCall = (label: string) => /^[A-Z]\w*Object\.\w+$/.test(label);
const classOf = (label: string) => label.split(".")[0];

/** Starts watching the tallies; one watch per job. */
export function watchTallies(): Watch {
  const seen: InvocationTally[] = [];
  const objectCalls = new Map<InvocationTally, number>();
  const check = InvocationTally.prototype.check;
  InvocationTally.prototype.check = function (this: InvocationTally) {
    seen.push(this);
    if (isObjectCall(this.label)) {
      const open = [...openInvocations()].filter((t) => t !== this);
      const caller = [...open].reverse().find((t) => classOf(t.label) !== classOf(this.label));
      for (const t of open) if (caller && classOf(t.label) === classOf(caller.label)) objectCalls.set(t, (objectCalls.get(t) ?? 0) + 1);
    }
    check.call(this);
  };
  return {
    settled: () => seen.map((tally) => ({ tally, objectCalls: objectCalls.get(tally) ?? 0 })),
    reset: () => {
      seen.length = 0;
      objectCalls.clear();
    },
  };
}

/** Invocations summed: how many, and the most D1 queries and subrequests (object calls among them) of any one. */
export function figuresOf(invocations: { tally: InvocationTally; objectCalls: number }[]): InvocationFigures {
  let most = { d1Queries: 0, subrequests: 0, label: "" };
  for (const { tally, objectCalls } of invocations) {
    const subrequests = tally.subrequests + objectCalls;
    most = {
      d1Queries: Math.max(most.d1Queries, tally.d1Queries),
      subrequests: Math.max(most.subrequests, subrequests),
      label: tally.d1Queries > most.d1Queries ? tally.label : most.label,
    };
  }
  return { invocations: invocations.length, mostD1Queries: most.d1Queries, mostSubrequests: most.subrequests, busiest: most.label };
}

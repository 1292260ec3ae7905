import { asInvocation, closeInvocation, countingEnv, guardEnabled, InvocationTally, openInvocation } from "./platform";

// The entry points' side of src/limits/platform.ts: the Worker's handlers and the Durable
// Objects count per invocation when INVOCATION_GUARD=1, and run unchanged otherwise.

/** Runs a Worker handler's `work` as one invocation over the bindings it sees (counted when the guard is on). */
export function inInvocation<E extends object, T>(label: string, env: E, work: (env: E) => Promise<T>): Promise<T> {
  if (!guardEnabled(env)) return work(env);
  const tally = new InvocationTally(label);
  return asInvocation(tally, () => work(countingEnv(env, () => [tally])));
}

type ObjectClass<E> = new (ctx: DurableObjectState, env: E) => object;


/** The calls running on each guarded object: its bindings count toward every one of them. */
const callsOf = new WeakMap<object, Set<InvocationTally>>();

/**
 * A Durable Object class whose every request and alarm is its own invocation when the guard
 * is on: its bindings count toward the calls running on it. Each method of the class is
 * wrapped; one it calls from within opens a tally inside its caller's, which sees it all.
 */
export function guardObject<C extends ObjectClass<never>>(Base: C, label: string): C {
  const Guarded = class extends (Base as unknown as ObjectClass<object>) {
    constructor(ctx: DurableObjectState, env: object) {
      const calls = new Set<InvocationTally>();
      const guarded = guardEnabled(env);
      super(ctx, guarded ? countingEnv(env, () => calls) : env);
      if (guarded) callsOf.set(this, calls);
    }
  };
  for (const name of Object.getOwnPropertyNames(Base.prototype)) {
    const method: unknown = Object.getOwnPropertyDescriptor(Base.prototype, name)?.value;
    if (name === "constructor" || typeof method !== "function") continue;
    Object.defineProperty(Guarded.prototype, name, {
      value: function (this: object, ...args: unknown[]): unknown {
        const calls = callsOf.get(this);
        if (!calls) return method.apply(this, args);
        return counted(calls, new InvocationTally(`${label}.${name}`), () => method.apply(this, args));
      },
      writable: true,
      configurable: true,
    });
  }
  return Guarded as unknown as C;
}

/** Runs a call with its tally open; an asynchronous call's tally closes when it settles. */
function counted(calls: Set<InvocationTally>, tally: InvocationTally, call: () => unknown): unknown {
  calls.add(tally);
  openInvocation(tally);
  const close = () => {
    calls.delete(tally);
    closeInvocation(tally);
  };
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    close();
    throw error;
  }
  if (!(result instanceof Promise)) {
    close();
    tally.check();
    return result;
  }
  return result.then(
    (value: unknown) => {
      close();
      tally.check();
      return value;
    },
    (error: unknown) => {
      close();
      throw error;
    },
  );
}

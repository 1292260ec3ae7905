// A request's time bound that ends with it. AbortSignal.timeout's timer lives on for its whole
// span after the request answered, and the runtime allows an isolate 10,000 of them at once: a
// consumer sending hundreds of webhook attempts a second hit that bound, every attempt after it
// failing. This timer is cleared as soon as the work ends, whichever way.

/** Runs `work` with a signal that aborts with a TimeoutError after `ms`; the timer goes when the work ends. */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, "TimeoutError")), ms);
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

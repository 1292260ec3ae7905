/**
 * A queue that runs calls one after another, in arrival order, whatever they await. A Durable
 * Object's method that awaits D1, a timer or fetch lets the next call in meanwhile; its methods
 * that must not overlap go through one of these.
 */
export function serialQueue(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}

// An import's object shares its isolate and its database with every other request. It works in
// small pieces, yielding between them, and after each stretch of work it rests for as long as a
// share of that work, so other requests keep their speed while a large archive is checked,
// staged and written.

/** Lets whatever is waiting on the event loop (other requests) run first. */
export const yieldToOthers = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Called between two small pieces of a long piece of work. */
export type Pause = () => Promise<void>;

/** Work, in milliseconds of wall time (D1 calls included), between two rests. */
const STRETCH_MS = 20;

/**
 * A pause that yields every time and, once STRETCH_MS of work has gone by since the last rest,
 * rests `rest` times as long as that work took. (The clock of a Worker moves only across
 * awaits, so the stretch is measured after the yield.)
 */
export function createPacer(rest: number): Pause {
  let since = Date.now();
  return async () => {
    await yieldToOthers();
    const worked = Date.now() - since;
    if (worked < STRETCH_MS) return;
    await new Promise((resolve) => setTimeout(resolve, worked * rest));
    since = Date.now();
  };
}

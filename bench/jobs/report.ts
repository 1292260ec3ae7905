/** The marker the node runner looks for on stdout. */
export const RESULT_MARK = "@@bench-result ";
export const PROGRESS_MARK = "@@bench-progress ";

/** Hands a job's result to the node runner. */
export function report(result: unknown): void {
  console.log(RESULT_MARK + JSON.stringify(result));
}

/** One progress line, shown by the runner as it arrives. */
export function progress(text: string): void {
  console.log(PROGRESS_MARK + text);
}

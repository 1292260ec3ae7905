// LongMemEval's question kinds and turn keys: plain data, read by the node runner and the jobs inside workerd alike.

/** The question kinds, numbered as the results list them. */
export const QUESTION_KINDS = [
  "multi-session",
  "temporal-reasoning",
  "knowledge-update",
  "single-session-user",
  "single-session-assistant",
  "single-session-preference",
] as const;
/** The kind whose facts changed: "newer first" is measured on it. */
export const KNOWLEDGE_UPDATE = QUESTION_KINDS.indexOf("knowledge-update") + 1;

/** The session a turn key (`s<session>_t<turn>`) names. */
export const sessionOf = (turnId: string) => Number(/^s(\d+)_/.exec(turnId)?.[1] ?? Number.NaN);

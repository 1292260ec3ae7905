// How many memories a read returns when the caller does not say, and the most it may ask for:
// one number each, used by REST, MCP, the bot and (through the OpenAPI document) the client.

/** A count a caller may give: at least 1, at most `max`; `default` when it gives none. */
export interface CountLimit {
  readonly default: number;
  readonly max: number;
}

/**
 * A search's results. 10, not 20: most searches come from models (MCP, the AI SDK tools) and
 * from people in a chat, who read every result and pay for it in context; the tools have
 * always promised 10, and a caller that wants more asks for up to `max`.
 */
export const SEARCH_LIMIT = { default: 10, max: 100 } as const satisfies CountLimit;

/** A page of a list (memories, notes, sessions); `offset` pages on. */
export const LIST_LIMIT = { default: 50, max: 100 } as const satisfies CountLimit;

/** The memories a plain-text recall lists before `max_tokens` cuts it. */
export const RECALL_LIMIT = { default: 100, max: 500 } as const satisfies CountLimit;

/** The token budget a recall may be given (`max_tokens`); none means the whole list. */
export const RECALL_TOKENS = { min: 1, max: 200_000 } as const;

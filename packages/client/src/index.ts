export { createEdgemind, type EdgemindClient, type EdgemindOptions } from "./client.js";
export { EdgemindError, type EdgemindErrorCode } from "./errors.js";
export type { components, paths } from "./generated/api.js";
export { TOOL_DESCRIPTIONS, type ToolName } from "./tool-descriptions.js";
export { BOOKMARK_HEADER, type FetchLike, type RetryOptions } from "./transport.js";
export type * from "./types.js";
export { verifyWebhook } from "./webhooks.js";

import { createApp } from "./app";
import type { Env } from "./config";

export { SessionObject } from "./sessions/session-object";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;

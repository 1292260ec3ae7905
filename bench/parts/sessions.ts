import type { Part } from "../lib/part";
export const sessions: Part = { name: "sessions", title: "sessions", async run() { throw new Error("not built yet"); } };

import type { Part } from "../lib/part";
export const peer: Part = { name: "peer", title: "peer", async run() { throw new Error("not built yet"); } };

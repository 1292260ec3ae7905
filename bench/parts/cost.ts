import type { Part } from "../lib/part";
export const cost: Part = { name: "cost", title: "cost", async run() { throw new Error("not built yet"); } };

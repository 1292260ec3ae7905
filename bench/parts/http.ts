import type { Part } from "../lib/part";
export const http: Part = { name: "http", title: "http", async run() { throw new Error("not built yet"); } };

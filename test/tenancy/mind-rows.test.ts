import { describe, expect, it } from "vitest";

const sources = import.meta.glob<string>("../../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true });
const files = Object.entries(sources).map(([path, text]) => [path.replace(/^(\.\.\/)+/, ""), text] as const);

describe("one way to change a mind's row", () => {
  it("builds every update of the minds table in src/tenancy/mind-rows.ts, and runs each raw one inside changingMind", () => {
    const builders = files.filter(([path, text]) => path !== "src/tenancy/mind-rows.ts" && /\.update\(\s*minds\s*\)/.test(text)).map(([path]) => path);
    expect(builders).toEqual([]);
    const raw = files.filter(([, text]) => /\bupdate minds set\b/i.test(text));
    expect(raw.length).toBeGreaterThan(0);
    for (const [path, text] of raw) {
      const statements = text.split(/\bupdate minds set\b/i).length - 1;
      const changes = text.split("changingMind(").length - 1;
      expect(changes, path).toBeGreaterThanOrEqual(statements);
    }
  });
});

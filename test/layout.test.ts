import { describe, expect, it } from "vitest";

// Every behaviour has one home in the domain, reached from thin fronts: a front never imports
// another front, and nothing outside the fronts imports one, except the two files that wire
// the Worker together.

const FRONTS = ["api", "telegram", "mcp", "ui", "cron", "docs"];
const WIRING = ["src/app.ts", "src/index.ts"];

const sources = import.meta.glob<string>("../src/**/*.{ts,tsx}", { query: "?raw", import: "default", eager: true });

/** `src/…` paths and their text. */
function sourceFiles(): Record<string, string> {
  return Object.fromEntries(Object.entries(sources).map(([path, text]) => [path.replace(/^\.\.\//, ""), text]));
}

/** The relative module specifiers a file imports or re-exports (static, type-only or dynamic). */
function importsOf(text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.[^"']*)["']/g)].map((m) => m[1]!);
}

function resolve(file: string, specifier: string): string {
  const parts = file.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The front a `src/…` path belongs to, or null. */
const frontOf = (path: string) => {
  const top = path.split("/")[1] ?? "";
  return path.split("/").length > 2 && FRONTS.includes(top) ? top : null;
};

/** Each import that crosses into a front from where it may not: "importer -> imported". */
function layoutViolations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (WIRING.includes(file)) continue;
    const own = frontOf(file);
    for (const specifier of importsOf(text)) {
      const target = resolve(file, specifier);
      const front = frontOf(target);
      if (front !== null && front !== own) found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

describe("source layout", () => {
  it("reads the whole source tree", () => {
    const files = Object.keys(sourceFiles());
    expect(files).toContain("src/app.ts");
    expect(files).toContain("src/telegram/webhook.ts");
    expect(files.length).toBeGreaterThan(50);
  });

  it("no front imports another front, and no other file imports a front", () => {
    expect(layoutViolations(sourceFiles())).toEqual([]);
  });

  it("the check catches a front importing a front and a domain file importing a front", () => {
    const files = {
      "src/app.ts": 'import { memoryRoutes } from "./api/memory";',
      "src/telegram/webhook.ts": 'import { createRouter } from "../api/router";\nimport { x } from "./updates";',
      "src/minds/import.ts": 'import type { X } from "../api/errors";\nimport { y } from "../errors";',
      "src/ui/pages/memories.tsx": 'const m = await import("../../mcp/server");',
      "src/cron/retention.ts": 'export { z } from "../db/retention";',
    };
    expect(layoutViolations(files)).toEqual([
      "src/minds/import.ts -> src/api/errors",
      "src/telegram/webhook.ts -> src/api/router",
      "src/ui/pages/memories.tsx -> src/mcp/server",
    ]);
  });
});

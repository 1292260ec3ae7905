import { describe, expect, it } from "vitest";

// Every behaviour has one home in the domain, reached from thin fronts: a front never imports
// another front, and nothing outside the fronts imports one, except the files that wire the
// Worker together. Below the fronts the folders form layers that run one way: tenancy and the
// events a write appends under the domain (memory <- notes <- sessions <- context), portability
// and webhooks over it, and the infrastructure (db, llm, embeddings, http, limits, observe) under
// all of them, importing neither the wiring nor anything above it (scripts/folder-graph.mjs
// prints the whole graph). A Durable Object class is an entry point as a front is: nothing below
// the fronts imports its module, nor the fronts' settings (src/config.ts); the Worker's Env is a
// global type (src/worker-env.d.ts), so naming a binding imports nothing.

const FRONTS = ["api", "telegram", "mcp", "ui", "docs", "jobs"];
// src/worker-env.d.ts declares the bindings, so it names (as types) the Durable Object classes the worker exports.
const WIRING = ["src/app.ts", "src/index.ts", "src/worker-env.d.ts"];
/** Above the layers: the fronts, the auth middleware in front of them, and the files that wire them together or read their settings. */
const ABOVE_THE_LAYERS = [...FRONTS, "auth"];
const ENTRY_FILES = [...WIRING, "src/config.ts", "src/app-env.ts"];

/** Infrastructure, and the files at the top of src/ it may not import: the wiring. */
const INFRASTRUCTURE = ["db", "llm", "embeddings", "http", "limits", "observe"];
const WIRING_FILES = ["src/deps", "src/app-env", "src/app", "src/index"];

/** The folders each layer may import, besides itself and the files at the top of src/. */
// observe (the log lines and the D1 meter) sits under everything that logs.
const LOWER = { types: [], observe: [], db: [], limits: [], http: ["limits", "observe"], llm: ["db", "observe"], embeddings: ["db", "llm", "observe"], tenancy: ["db", "llm", "observe"] };
// events: the event rows a write's batch appends and the wake of their delivery, under the domain's after-write seam.
const EVENTS = ["db", "queue", "observe"];
const MEMORY = ["db", "llm", "tenancy", "embeddings", "observe", "events"];
const NOTES = [...MEMORY, "memory"];
const SESSIONS = [...NOTES, "notes"];
const CONTEXT = [...SESSIONS, "sessions"];
const LAYERS: Record<string, string[]> = {
  ...LOWER,
  queue: ["db", "llm", "observe"],
  events: EVENTS,
  // webhooks: their management and delivery, reached from the fronts (the API, the web UI, the queue's handler).
  webhooks: [...EVENTS, "events", "http", "tenancy"],
  memory: MEMORY,
  notes: NOTES,
  sessions: SESSIONS,
  context: CONTEXT,
  portability: [...SESSIONS, "sessions"],
  auth: ["db", "http", "limits", "tenancy", "observe"],
};

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

/** The top folder of a `src/…` path, or null for the files at the top. */
const folderOf = (path: string) => (path.split("/").length > 2 ? path.split("/")[1]! : null);

/** Each import from a layer into a folder it may not import: "importer -> imported". */
function layerViolations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    const own = folderOf(file);
    const allowed = own === null ? undefined : LAYERS[own];
    if (allowed === undefined) continue;
    for (const specifier of importsOf(text)) {
      const target = resolve(file, specifier);
      const folder = target.startsWith("src/") ? folderOf(target) : "outside src";
      if (folder !== null && folder !== own && !allowed.includes(folder)) found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

/** Each import of the wiring from infrastructure: "importer -> imported". */
function wiringViolations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (!INFRASTRUCTURE.includes(folderOf(file) ?? "")) continue;
    for (const specifier of importsOf(text)) {
      const target = resolve(file, specifier);
      if (WIRING_FILES.includes(target)) found.push(`${file} -> ${target}`);
    }
  }
  return found.sort();
}

/** Each import of a file outside src/ by a path into it, instead of by a package's name: "importer -> specifier". */
function pathImportsOutside(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    for (const specifier of importsOf(text)) if (!resolve(file, specifier).startsWith("src/")) found.push(`${file} -> ${specifier}`);
  }
  return found.sort();
}

/** Files other than src/worker-env.d.ts that declare (or augment) the Worker's Env. */
function envDeclarations(files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([file, text]) => file !== "src/worker-env.d.ts" && /\binterface Env\b|declare module ["'][^"']*\/config["']/.test(text))
    .map(([file]) => file)
    .sort();
}

/**
 * Each import from below the fronts of a Durable Object class's module (an entry point, as a
 * front is) or of src/config.ts (the fronts' settings): "importer -> imported".
 */
function entryPointImports(files: Record<string, string>): string[] {
  const objects = Object.entries(files)
    .filter(([, text]) => /\bextends DurableObject\b/.test(text))
    .map(([file]) => file.replace(/\.tsx?$/, ""));
  const found: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    if (ABOVE_THE_LAYERS.includes(folderOf(file) ?? "") || ENTRY_FILES.includes(file)) continue;
    for (const specifier of importsOf(text)) {
      const target = resolve(file, specifier);
      if (objects.includes(target) || target === "src/config") found.push(`${file} -> ${target}`);
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
      "src/portability/import.ts": 'import type { X } from "../api/errors";\nimport { y } from "../errors";',
      "src/ui/pages/memories.tsx": 'const m = await import("../../mcp/server");',
      "src/jobs/retention.ts": 'export { z } from "../db/prune";',
    };
    expect(layoutViolations(files)).toEqual([
      "src/portability/import.ts -> src/api/errors",
      "src/telegram/webhook.ts -> src/api/router",
      "src/ui/pages/memories.tsx -> src/mcp/server",
    ]);
  });

  it("every folder below the fronts imports only the layers under it", () => {
    const folders = new Set(Object.keys(sourceFiles()).map(folderOf));
    for (const folder of folders) if (folder !== null && !FRONTS.includes(folder)) expect(LAYERS, folder).toHaveProperty(folder);
    expect(layerViolations(sourceFiles())).toEqual([]);
  });

  it("the check catches imports against the layers", () => {
    const files = {
      "src/memory/search.ts": 'import { x } from "../notes/notes";\nimport { y } from "../tenancy/mind-context";',
      "src/notes/notes.ts": 'import type { S } from "../sessions/model";\nimport { m } from "../memory/model";',
      "src/sessions/chats.ts": 'import { erase } from "../portability/erase";',
      "src/tenancy/keys.ts": 'import { a } from "../auth/middleware";\nimport { c } from "../clock";',
      "src/db/schema.ts": 'import { m } from "../memory/model";',
      "src/portability/export.ts": 'import { s } from "../sessions/model";\nimport { r } from "../api/router";',
    };
    expect(layerViolations(files)).toEqual([
      "src/db/schema.ts -> src/memory/model",
      "src/memory/search.ts -> src/notes/notes",
      "src/notes/notes.ts -> src/sessions/model",
      "src/portability/export.ts -> src/api/router",
      "src/sessions/chats.ts -> src/portability/erase",
      "src/tenancy/keys.ts -> src/auth/middleware",
    ]);
  });

  it("infrastructure imports none of the wiring", () => {
    expect(wiringViolations(sourceFiles())).toEqual([]);
  });

  it("the check catches infrastructure importing the wiring", () => {
    const files = {
      "src/db/prune.ts": 'import type { InShard } from "../deps";\nimport type { Db } from "./client";',
      "src/http/router.ts": 'import type { AppEnv } from "../app-env";',
      "src/memory/vectors.ts": 'import type { InShard } from "../deps";',
    };
    expect(wiringViolations(files)).toEqual(["src/db/prune.ts -> src/deps", "src/http/router.ts -> src/app-env"]);
  });

  it("no file below the fronts imports a Durable Object class's module or the fronts' settings", () => {
    expect(entryPointImports(sourceFiles())).toEqual([]);
  });

  it("the check catches an import of a Durable Object class's module or of src/config.ts from below the fronts", () => {
    const files = {
      "src/sessions/session-object.ts": "export class SessionObject extends DurableObject<Env> {}",
      "src/sessions/objects.ts": 'import type { SessionObject } from "./session-object";',
      "src/llm/limited-model.ts": 'import { readLlmConfig } from "../config";',
      "src/auth/middleware.ts": 'import { readAuthConfig } from "../config";',
      "src/index.ts": 'import { SessionObject } from "./sessions/session-object";',
      "src/telegram/bot.ts": 'import type { TelegramConfig } from "../config";',
    };
    expect(entryPointImports(files)).toEqual(["src/llm/limited-model.ts -> src/config", "src/sessions/objects.ts -> src/sessions/session-object"]);
  });

  it("the Worker's Env is declared in src/worker-env.d.ts alone, never augmented elsewhere", () => {
    expect(sourceFiles()["src/worker-env.d.ts"]).toMatch(/^interface Env \{/m);
    expect(envDeclarations(sourceFiles())).toEqual([]);
  });

  it("the check catches an Env augmented beside a class", () => {
    const files = {
      "src/worker-env.d.ts": "interface Env { DB: D1Database }",
      "src/sessions/session-object.ts": 'declare module "../config" {\n  interface Env { SESSIONS: X }\n}',
      "src/queue/units.ts": "export interface Unit { kind: string }",
    };
    expect(envDeclarations(files)).toEqual(["src/sessions/session-object.ts"]);
  });

  it("the Worker imports the client package by its name, never by a path out of src/", () => {
    expect(pathImportsOutside(sourceFiles())).toEqual([]);
  });

  it("the check catches a path into the client package", () => {
    const files = {
      "src/mcp/tools/memory-store.ts": 'import { TOOL_DESCRIPTIONS } from "../../../packages/client/src/tool-descriptions";\nimport { x } from "../../errors";',
      "src/mcp/tools/memory-search.ts": 'import { ARGUMENT_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";',
    };
    expect(pathImportsOutside(files)).toEqual(["src/mcp/tools/memory-store.ts -> ../../../packages/client/src/tool-descriptions"]);
  });
});

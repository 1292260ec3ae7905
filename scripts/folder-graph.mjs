#!/usr/bin/env node
// Prints which folder of src/ imports which (with the number of importing files), and every
// loop between folders: the map the layout test keeps one-way.
// It also lists each file of the infrastructure (db, llm, embeddings, http, limits, observe) that imports
// the wiring (deps.ts, app-env.ts), tenancy or the domain: there should be none.
//   node scripts/folder-graph.mjs
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../src");

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(name)) yield path;
  }
}

/** The top folder of a path under src/ ("." for files at the top; outside src/, its package). */
const folderOf = (path) => {
  const parts = relative(root, path).split("/");
  if (parts[0] === "..") return parts.slice(1, 3).join("/");
  return parts.length > 1 ? parts[0] : ".";
};

const INFRASTRUCTURE = ["db", "llm", "embeddings", "http", "limits", "observe"];
const ABOVE_INFRASTRUCTURE = ["tenancy", "memory", "notes", "sessions", "context", "portability", "queue", "jobs"];
const WIRING = ["deps.ts", "app-env.ts", "app.ts", "index.ts"];
const upward = [];
const edges = new Map();
for (const file of files(root)) {
  const from = folderOf(file);
  const text = readFileSync(file, "utf8");
  for (const [, specifier] of text.matchAll(/\b(?:from|import)\s*\(?\s*["'](\.[^"']*)["']/g)) {
    const target = resolve(dirname(file), specifier);
    const to = folderOf(target);
    if (INFRASTRUCTURE.includes(from) && (ABOVE_INFRASTRUCTURE.includes(to) || (to === "." && WIRING.some((w) => target.replace(/\.tsx?$/, "") === join(root, w.replace(/\.ts$/, ""))))))
      upward.push(`${relative(root, file)} -> ${relative(root, target)}`);
    if (to === from || to === "." || from === ".") continue;
    const key = `${from} -> ${to}`;
    edges.set(key, (edges.get(key) ?? new Set()).add(relative(root, file)));
  }
}

const graph = new Map();
for (const key of [...edges.keys()].sort()) {
  const [from, to] = key.split(" -> ");
  graph.set(from, [...(graph.get(from) ?? []), to]);
  console.log(`${key} (${edges.get(key).size})`);
}

// Loops: pairs of folders that reach each other.
const reaches = (from, to, seen = new Set()) =>
  (graph.get(from) ?? []).some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
const folders = [...graph.keys()].sort();
const loops = folders.flatMap((a) => folders.filter((b) => a < b && reaches(a, b) && reaches(b, a)).map((b) => `${a} <-> ${b}`));
console.log(loops.length ? `\nloops (${loops.length}):\n${loops.join("\n")}` : "\nno loops");
console.log(upward.length ? `\ninfrastructure importing the wiring, tenancy or the domain (${upward.length}):\n${upward.join("\n")}` : "no infrastructure importing the wiring, tenancy or the domain");

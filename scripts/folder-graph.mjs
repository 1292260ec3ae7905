#!/usr/bin/env node
// Prints which folder of src/ imports which (with the number of importing files), every loop
// between folders, each import from below the fronts up to a front or the wiring, each file of
// the infrastructure that imports the wiring, tenancy or the domain (there should be none), and
// the largest circle of files that reach one another by imports (type-only imports included).
//   node scripts/folder-graph.mjs
// With --from, prints instead the files a reader opens to follow a flow: every file reachable from
// the given ones by imports that carry code (type-only imports left out), and their folders.
//   node scripts/folder-graph.mjs --from src/telegram/chat-object.ts
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../src");

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(name)) yield path;
  }
}

/** The file a relative specifier names (its .ts, .tsx, .d.ts or index file), or the bare path. */
function resolveFile(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [`${base}.ts`, `${base}.tsx`, `${base}.d.ts`, join(base, "index.ts"), base];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
}

/** Each relative import of a file: { target, typeOnly }. */
function importsOf(file, text) {
  const found = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^;]*?)\bfrom\s*["'](\.[^"']*)["']/gms;
  for (const [, , typeKeyword, clause, specifier] of text.matchAll(statement)) {
    const names = clause.match(/\{([^}]*)\}/)?.[1];
    const allTypes = names !== undefined && !/^\s*\w/.test(clause.replace(/\{[^}]*\}/, "").replace(/,/g, "")) && names.split(",").every((name) => !name.trim() || /^\s*type\s/.test(name));
    found.push({ target: resolveFile(file, specifier), typeOnly: Boolean(typeKeyword) || allTypes });
  }
  for (const [, specifier] of text.matchAll(/\bimport\s*\(\s*["'](\.[^"']*)["']\s*\)/g)) {
    // import("./x") in a type position (an ambient declaration) carries no code.
    found.push({ target: resolveFile(file, specifier), typeOnly: file.endsWith(".d.ts") });
  }
  for (const [, specifier] of text.matchAll(/^\s*import\s*["'](\.[^"']*)["']/gm)) found.push({ target: resolveFile(file, specifier), typeOnly: false });
  return found;
}

const name = (path) => relative(root, path);
/** The top folder of a path under src/ ("." for files at the top; outside src/, its package). */
const folderOf = (path) => {
  const parts = name(path).split("/");
  if (parts[0] === "..") return parts.slice(1, 3).join("/");
  return parts.length > 1 ? parts[0] : ".";
};

const INFRASTRUCTURE = ["db", "llm", "embeddings", "http", "limits", "observe"];
const ABOVE_INFRASTRUCTURE = ["tenancy", "memory", "notes", "sessions", "context", "portability", "queue", "jobs"];
/** The fronts and the auth middleware in front of them. */
const FRONTS = ["api", "telegram", "mcp", "ui", "docs", "jobs", "auth"];
/** The files at the top that wire the Worker together, declare its Env or read its settings for the fronts. */
const WIRING = ["app.ts", "index.ts", "config.ts", "app-env.ts", "worker-env.d.ts"];
const INFRASTRUCTURE_MAY_NOT = ["deps.ts", "app-env.ts", "app.ts", "index.ts"];
const isWiring = (path, list = WIRING) => list.some((w) => name(path) === w);
const isAboveTheLayers = (path) => FRONTS.includes(folderOf(path)) || isWiring(path);

const imports = new Map();
for (const file of files(root)) imports.set(file, importsOf(file, readFileSync(file, "utf8")));

const fromIndex = process.argv.indexOf("--from");
if (fromIndex >= 0) printFlow(process.argv.slice(fromIndex + 1));
else printGraph();

function printGraph() {
  const edges = new Map();
  const upward = [];
  const infrastructureUp = [];
  for (const [file, list] of imports) {
    const from = folderOf(file);
    for (const { target, typeOnly } of list) {
      const to = folderOf(target);
      const arrow = `${name(file)} -> ${name(target)}${typeOnly ? " (type only)" : ""}`;
      if (!isAboveTheLayers(file) && isAboveTheLayers(target)) upward.push(arrow);
      if (INFRASTRUCTURE.includes(from) && (ABOVE_INFRASTRUCTURE.includes(to) || isWiring(target, INFRASTRUCTURE_MAY_NOT))) infrastructureUp.push(arrow);
      if (to === from || to === "." || from === ".") continue;
      const key = `${from} -> ${to}`;
      edges.set(key, (edges.get(key) ?? new Set()).add(name(file)));
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
  console.log(loops.length ? `\nloops (${loops.length}):\n${loops.join("\n")}` : "\nno loops between folders");
  console.log(upward.length ? `\nimports from below the fronts up to a front or the wiring (${upward.length}):\n${upward.sort().join("\n")}` : "no import from below the fronts up to a front or the wiring");
  console.log(
    infrastructureUp.length
      ? `\ninfrastructure importing the wiring, tenancy or the domain (${infrastructureUp.length}):\n${infrastructureUp.sort().join("\n")}`
      : "no infrastructure importing the wiring, tenancy or the domain",
  );

  const circle = largestCircle();
  const circleFolders = [...new Set(circle.map(folderOf))].sort();
  console.log(`\nlargest circle of files: ${circle.length} files in ${circleFolders.length} folder(s) (${circleFolders.join(", ")})`);
  if (circle.length > 1) console.log(circle.map(name).sort().join("\n"));
}

/** The largest set of files that all reach one another by imports (Tarjan's strongly connected components). */
function largestCircle() {
  let next = 0;
  let largest = [];
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const { target } of imports.get(file) ?? []) {
      if (!imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > largest.length) largest = component;
  };
  for (const file of imports.keys()) if (!index.has(file)) visit(file);
  return largest;
}

/** The files reachable from the given ones by imports that carry code, grouped by folder. */
function printFlow(starts) {
  const seen = new Set();
  const pending = starts.map((start) => resolve(root, "..", start));
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file) || !imports.has(file)) continue;
    seen.add(file);
    for (const { target, typeOnly } of imports.get(file)) if (!typeOnly) pending.push(target);
  }
  const byFolder = new Map();
  for (const file of seen) byFolder.set(folderOf(file), [...(byFolder.get(folderOf(file)) ?? []), name(file)]);
  console.log(`${seen.size} files in ${byFolder.size} folders`);
  for (const folder of [...byFolder.keys()].sort()) console.log(`${folder} (${byFolder.get(folder).length}): ${byFolder.get(folder).sort().join(" ")}`);
}

#!/usr/bin/env node
// Lists every name a file of src/ exports that nothing uses: no other file imports it (src/,
// test/, bench/, scripts/ and examples/ read) and its own file does not name it again (a
// re-export, a constant or a function left behind). src/index.ts exports the Worker to the
// runtime and is left out. Exits 1 when it finds any.
//   node scripts/unused-exports.mjs
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "..");
const src = join(repo, "src");
const READERS = ["src", "test", "bench", "scripts", "examples", "vitest.config.ts"];
/** Exported to the runtime, not to other files. */
const ENTRY_POINTS = [join(src, "index.ts")];

function* files(path) {
  if (!existsSync(path) || /node_modules|\/results$/.test(path)) return;
  if (statSync(path).isFile()) {
    if (/\.(tsx?|mts|mjs)$/.test(path)) yield path;
    return;
  }
  for (const name of readdirSync(path)) yield* files(join(path, name));
}

/** The file a relative specifier names, or null. */
function resolveFile(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}.d.ts`, join(base, "index.ts")];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
}

/** The names a `{ … }` clause lists: [name in the other file, name here]. */
const namesIn = (clause) =>
  clause
    .split(",")
    .map((part) => part.trim().replace(/^type\s+/, ""))
    .filter(Boolean)
    .map((part) => {
      const [theirs, ours] = part.split(/\s+as\s+/);
      return [theirs.trim(), (ours ?? theirs).trim()];
    });

/** What a file exports by name (re-exports included). */
function exportsOf(text) {
  const names = new Set();
  const declared = /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\s*\*?|const|let|var|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const [, name] of text.matchAll(declared)) names.add(name);
  if (/^export\s+default\b/m.test(text)) names.add("default");
  for (const [, clause] of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) for (const [, ours] of namesIn(clause)) names.add(ours);
  return names;
}

/** Each use another file makes of a file's exports: [file, name], name "*" for all of them. */
function usesIn(file, text) {
  const uses = [];
  const from = /^\s*(?:import|export)\s+(?:type\s+)?([^;]*?)\s*from\s*["'](\.[^"']*)["']/gms;
  for (const [, clause, specifier] of text.matchAll(from)) {
    const target = resolveFile(file, specifier);
    if (!target) continue;
    if (/^\*/.test(clause)) uses.push([target, "*"]);
    const braces = clause.match(/\{([^}]*)\}/);
    if (braces) for (const [theirs] of namesIn(braces[1])) uses.push([target, theirs]);
    const withoutBraces = clause.replace(/\{[^}]*\}/, "").replace(/,/g, " ").trim();
    if (/^[A-Za-z_$][\w$]*$/.test(withoutBraces)) uses.push([target, "default"]);
  }
  for (const [, specifier] of text.matchAll(/\bimport\s*\(\s*["'](\.[^"']*)["']\s*\)/g)) {
    const target = resolveFile(file, specifier);
    if (target) uses.push([target, "*"]);
  }
  return uses;
}

const used = new Map();
for (const reader of READERS) {
  for (const file of files(join(repo, reader))) {
    for (const [target, name] of usesIn(file, readFileSync(file, "utf8"))) {
      if (target === file) continue;
      used.set(target, (used.get(target) ?? new Set()).add(name));
    }
  }
}

/** Whether the file names `name` besides exporting it. */
const namedAgain = (text, name) => name !== "default" && (text.match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g")) ?? []).length > 1;

const unused = [];
for (const file of files(src)) {
  if (ENTRY_POINTS.includes(file) || file.endsWith(".d.ts")) continue;
  const taken = used.get(file) ?? new Set();
  if (taken.has("*")) continue;
  const text = readFileSync(file, "utf8");
  for (const name of exportsOf(text)) if (!taken.has(name) && !namedAgain(text, name)) unused.push(`${relative(repo, file)}: ${name}`);
}

if (unused.length === 0) console.log("no export that nothing uses");
else {
  console.log(`exports nothing uses (${unused.length}): delete them\n${unused.sort().join("\n")}`);
  process.exitCode = 1;
}

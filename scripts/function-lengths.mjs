#!/usr/bin/env node
// Lists every function in src/ longer than 60 lines (blank lines not counted), from its first
// line to its last: declarations, methods, arrow functions (a route's or a bot command's handler,
// JSX and all) and generators alike. It reads the syntax tree TypeScript itself builds. Exits 1
// when it finds any.
//   node scripts/function-lengths.mjs
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { SyntaxKind } from "typescript/unstable/ast";
import { API } from "typescript/unstable/sync";

const MAX_LINES = 60;
const repo = resolve(import.meta.dirname, "..");
const FUNCTIONS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

/** A function's name as a reader finds it: its own, the variable or property it is given to, or the call it is handed to. */
function nameOf(node) {
  if (node.name?.text) return node.name.text;
  const parent = node.parent;
  if (parent?.name?.text) return parent.name.text;
  if (parent?.kind === SyntaxKind.CallExpression) {
    const callee = parent.expression;
    const route = parent.arguments?.[0]?.text;
    return `${callee?.name?.text ?? callee?.text ?? "call"}(${route === undefined ? "…" : JSON.stringify(route)}) handler`;
  }
  return "(anonymous)";
}

// Only the syntax of src/ is read: no library, no import followed, nothing type-checked.
const scratch = mkdtempSync(join(tmpdir(), "function-lengths-"));
const config = join(scratch, "tsconfig.json");
writeFileSync(config, JSON.stringify({ compilerOptions: { noLib: true, noResolve: true, types: [], jsx: "preserve" }, include: [`${resolve(repo, "src")}/**/*`] }));
const api = new API({ cwd: repo });
try {
  const snapshot = api.updateSnapshot({ openProject: config });
  const program = snapshot.getProject(config).program;
  const long = [];
  for (const fileName of program.getSourceFileNames()) {
    if (!fileName.startsWith(resolve(repo, "src")) || fileName.endsWith(".d.ts")) continue;
    const file = program.getSourceFile(fileName);
    const lines = file.text.split("\n");
    const lineOf = (offset) => file.text.slice(0, offset).split("\n").length - 1;
    const visit = (node) => {
      if (FUNCTIONS.has(node.kind)) {
        const first = lineOf(node.getStart(file));
        const last = lineOf(node.end);
        const count = lines.slice(first, last + 1).filter((line) => line.trim() !== "").length;
        if (count > MAX_LINES) long.push(`${relative(repo, fileName)}:${first + 1} ${nameOf(node)}: ${count} lines`);
      }
      node.forEachChild(visit);
    };
    visit(file);
  }
  if (long.length === 0) console.log(`no function in src/ over ${MAX_LINES} lines`);
  else {
    console.log(`functions in src/ over ${MAX_LINES} lines (${long.length}):\n${long.sort().join("\n")}`);
    process.exitCode = 1;
  }
} finally {
  api.close();
  rmSync(scratch, { recursive: true, force: true });
}

// Packs @edgemind/client as npm would publish it and installs the tarball in a scratch project
// beside the `ai` its README names for the running Node.js, that ai's OpenAI-compatible provider,
// `zod` and `@types/node`, as a user would: the install must leave a valid tree, the shipped
// files must stand on their own, a strict TypeScript project using the client and its AI SDK
// tools must compile and run, and the README's complete script must compile with the README's
// tsconfig, and with every declaration checked as the README says.
//
//   node scripts/pack-check.mjs                         ai 6 on Node.js 20, the newest on 22+; zod@latest
//   node scripts/pack-check.mjs --ai 5 --zod 4.0.0      an older pair the peer ranges admit
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// ai 7 declares Node.js 22 or newer: on Node.js 20 the README names ai 6.
const nodeMajor = Number(process.versions.node.split(".")[0]);
const { values: versions } = parseArgs({ options: { ai: { type: "string", default: nodeMajor >= 22 ? "latest" : "6" }, zod: { type: "string", default: "latest" } } });
/** The OpenAI-compatible provider made for each major of ai (the README's table). */
const PROVIDER_OF_AI = { 5: "1", 6: "2", 7: "3" };
const providerVersion = PROVIDER_OF_AI[versions.ai.split(".")[0]] ?? "latest";
const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const problems = new Set();
const scratch = mkdtempSync(path.join(tmpdir(), "edgemind-pack-check-"));
try {
  const tarball = pack(path.join(scratch, "pack"));
  const project = path.join(scratch, "project");
  install(project, tarball);
  const installed = path.join(project, "node_modules", "@edgemind", "client");
  checkShippedFiles(installed);
  checkReadme(installed);
  checkSourceMaps(installed);
  checkDeclaredTypes(installed);
  compile(project);
  compileReadmeScript(project, installed);
  run(project);
} catch (error) {
  problems.add(error instanceof Error ? error.message : String(error));
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (problems.size > 0) {
  console.error(`@edgemind/client does not install cleanly (ai@${versions.ai}, zod@${versions.zod}):\n- ${[...problems].join("\n- ")}`);
  process.exit(1);
}

function sh(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim();
    throw new Error(`${path.basename(command)} ${args.join(" ")} failed in ${cwd}:\n${output}`);
  }
}

/** `npm pack` as publishing runs it: its prepack builds dist/ from a clean slate. */
function pack(destination) {
  mkdirSync(destination);
  const [result] = JSON.parse(sh(npm, ["pack", "--json", "--pack-destination", destination, ...NPM_QUIET], packageDir));
  return path.join(destination, result.filename);
}

/** A fresh project installing the tarball beside the registry's ai and zod; `npm ls` fails on an invalid tree. */
function install(project, tarball) {
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  const others = [`ai@${versions.ai}`, `zod@${versions.zod}`, `@ai-sdk/openai-compatible@${providerVersion}`, `@types/node@${nodeMajor}`, "@types/json-schema"];
  sh(npm, ["install", tarball, ...others, ...NPM_QUIET], project);
  sh(npm, ["ls", "--all", ...NPM_QUIET], project);
}

function checkShippedFiles(dir) {
  for (const file of ["LICENSE", "README.md", "dist/index.js", "dist/index.d.ts", "dist/ai.js", "dist/ai.d.ts", "dist/compact.js", "dist/compact.d.ts", "dist/tool-descriptions.js", "dist/tool-descriptions.d.ts"]) {
    if (!existsSync(path.join(dir, file))) problems.add(`the tarball has no ${file}`);
  }
}

/** The registry shows the README alone: a relative link there leads nowhere. */
function checkReadme(dir) {
  const readme = readFileSync(path.join(dir, "README.md"), "utf8");
  for (const [, target] of readme.matchAll(/\]\(([^)]+)\)/g)) {
    if (!/^(https?:|mailto:|#)/.test(target)) problems.add(`README.md links to ${target}, which the registry page cannot follow`);
  }
}

function checkSourceMaps(dir) {
  for (const map of listFiles(path.join(dir, "dist")).filter((file) => file.endsWith(".map"))) {
    const { sources, sourceRoot = "" } = JSON.parse(readFileSync(map, "utf8"));
    for (const source of sources) {
      const target = path.resolve(path.dirname(map), sourceRoot, source);
      if (!existsSync(target)) problems.add(`${path.relative(dir, map)} points at ${path.relative(dir, target)}, which is not shipped`);
    }
  }
}

/** Every package a declaration file names must be one the package declares, or a user's tsc cannot find it. */
function checkDeclaredTypes(dir) {
  const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const file of listFiles(path.join(dir, "dist")).filter((name) => name.endsWith(".d.ts"))) {
    const text = readFileSync(file, "utf8");
    for (const [, specifier] of text.matchAll(/(?:from\s+|import\()\s*"([^"]+)"/g)) {
      if (specifier.startsWith(".")) continue;
      const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
      if (!declared.has(name)) problems.add(`${path.relative(dir, file)} refers to ${name}, which package.json does not declare`);
    }
  }
}

/**
 * Strict settings as a user's project has them. skipLibCheck, as `ai`'s own declarations need
 * @types/node: an import in ours that does not resolve turns the tools' types into `any`,
 * which leaves the @ts-expect-error below unused and so fails.
 */
function compile(project) {
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022", module: "nodenext", moduleResolution: "nodenext", lib: ["es2022", "dom", "dom.iterable"],
        types: [], strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true, noEmit: true,
      },
      files: ["use.ts"],
    }),
  );
  writeFileSync(
    path.join(project, "use.ts"),
    [
      'import { createEdgemind, EdgemindError, type Memory } from "@edgemind/client";',
      'import { edgemindTools, type EdgemindTools } from "@edgemind/client/ai";',
      'import { generateText, stepCountIs, type LanguageModel, type ToolSet } from "ai";',
      "",
      'const client = createEdgemind({ url: "http://127.0.0.1:8787", key: "em_test" });',
      "const tools: EdgemindTools = edgemindTools(client);",
      "const set: ToolSet = tools;",
      'type StoreInput = Parameters<typeof tools.memory_store.execute>[0];',
      'const good: StoreInput = { category: "preference", key: "tea", content: "Green tea" };',
      '// @ts-expect-error a category the API does not know',
      'const bad: StoreInput = { category: "nonsense", key: "tea", content: "Green tea" };',
      "export async function ask(model: LanguageModel): Promise<string> {",
      '  const { text } = await generateText({ model, tools, stopWhen: stepCountIs(3), prompt: "What do I drink?" });',
      "  return text;",
      "}",
      "export async function first(): Promise<Memory | undefined> {",
      '  try { return (await client.memory.search("tea")).results[0]; } catch (error) { if (error instanceof EdgemindError) return undefined; throw error; }',
      "}",
      "export { set, good, bad };",
      "",
    ].join("\n"),
  );
  const tsc = createRequire(path.join(packageDir, "package.json")).resolve("typescript/bin/tsc");
  sh(process.execPath, [tsc, "-p", project], project);
}

/** The fenced block of `lang` written under the README's `heading`. */
function readmeBlock(readme, heading, lang) {
  const section = readme.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  const block = section && new RegExp(`^\`\`\`${lang}\n([\\s\\S]*?)^\`\`\`$`, "m").exec(section);
  if (!block) throw new Error(`README.md has no ${lang} block under "## ${heading}"`);
  return block[1];
}

/**
 * The README's complete script, compiled as its reader would: with the tsconfig it gives, then
 * with every declaration checked (no skipLibCheck, the DOM's names and @types/json-schema), as it says.
 */
function compileReadmeScript(project, installed) {
  const readme = readFileSync(path.join(installed, "README.md"), "utf8");
  const { compilerOptions } = JSON.parse(readmeBlock(readme, "TypeScript settings", "json"));
  writeFileSync(path.join(project, "first-look.ts"), readmeBlock(readme, "A complete script", "ts"));
  const tsc = createRequire(path.join(packageDir, "package.json")).resolve("typescript/bin/tsc");
  const checkedAll = { ...compilerOptions, skipLibCheck: false, lib: [...compilerOptions.lib, "dom"], types: ["node", "json-schema"] };
  for (const [name, options] of [["readme", compilerOptions], ["readme-all", checkedAll]]) {
    writeFileSync(path.join(project, `tsconfig.${name}.json`), JSON.stringify({ compilerOptions: options, files: ["first-look.ts"] }));
    sh(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], project);
  }
}

/** The ESM entry points load and build the tools against the installed ai and zod. */
function run(project) {
  const script = [
    'const { createEdgemind } = await import("@edgemind/client");',
    'const { edgemindTools } = await import("@edgemind/client/ai");',
    'const tools = edgemindTools(createEdgemind({ url: "http://127.0.0.1:8787", key: "em_test" }));',
    'if (typeof tools.memory_search.execute !== "function") throw new Error("memory_search has no execute");',
  ].join("\n");
  sh(process.execPath, ["--input-type=module", "-e", script], project);
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}

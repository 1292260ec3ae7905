import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import type { Part } from "./lib/part";
import { backlog } from "./parts/backlog";
import { bounds } from "./parts/bounds";
import { context } from "./parts/context";
import { cost } from "./parts/cost";
import { faults } from "./parts/faults";
import { fuzz } from "./parts/fuzz";
import { growth } from "./parts/growth";
import { http } from "./parts/http";
import { latency } from "./parts/latency";
import { limits } from "./parts/limits";
import { peer } from "./parts/peer";
import { probe } from "./parts/probe";
import { retrieval } from "./parts/retrieval";
import { sessions } from "./parts/sessions";
import { soak } from "./parts/soak";
import { tenants } from "./parts/tenants";

// `npm run bench` runs every part; `npm run bench -- retrieval growth` only those named.
const PARTS: Part[] = [retrieval, context, growth, tenants, sessions, http, cost, peer, bounds, soak, fuzz, faults, backlog, limits, latency, probe];
const RESULTS = path.join(import.meta.dirname, "results");

const asked = process.argv.slice(2).filter((a) => a !== "--");
const unknown = asked.filter((name) => !PARTS.some((p) => p.name === name));
if (unknown.length > 0) {
  console.error(`unknown part: ${unknown.join(", ")}; parts are ${PARTS.map((p) => p.name).join(", ")}`);
  process.exit(2);
}
const chosen = asked.length === 0 ? PARTS : PARTS.filter((p) => asked.includes(p.name));
const log = (line: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${line}`);

const started = new Date();
// Other work on the machine skews latency: the load average is recorded beside the figures.
const machine = () => `load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} on ${cpus().length} cores`;
const sections: string[] = [`# edgemind benchmarks`, "", `Run ${started.toISOString()} on ${process.platform}/${process.arch}, Node ${process.version}, ${machine()} at the start.`];
const json: Record<string, unknown> = { started: started.toISOString(), node: process.version, machineAtStart: machine() };
let failed = false;
for (const part of chosen) {
  log(`${part.name}: ${part.title}`);
  const t0 = Date.now();
  try {
    const result = await part.run(log);
    json[part.name] = result.json;
    sections.push("", `## ${part.title}`, "", result.markdown);
    console.log(`\n## ${part.title}\n\n${result.markdown}\n`);
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? error.message : String(error);
    json[part.name] = { error: message };
    sections.push("", `## ${part.title}`, "", `Failed: ${message.split("\n")[0]}`);
    log(`${part.name} failed: ${message}`);
  }
  log(`${part.name}: ${((Date.now() - t0) / 1000).toFixed(0)} s, ${machine()}`);
  sections.push("", `_${part.name}: ${((Date.now() - t0) / 1000).toFixed(0)} s; ${machine()} when it ended._`);
}

// A full run is the committed record; a partial run is kept beside it under its own name.
const base = asked.length === 0 ? "latest" : chosen.map((p) => p.name).join("+");
mkdirSync(RESULTS, { recursive: true });
writeFileSync(path.join(RESULTS, `${base}.md`), sections.join("\n") + "\n");
writeFileSync(path.join(RESULTS, `${base}.json`), JSON.stringify(json, null, 2) + "\n");
log(`written: bench/results/${base}.md and .json`);
process.exit(failed ? 1 : 0);

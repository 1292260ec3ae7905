// The configuration checks /health answers from (src/config.ts), over the settings a local run or
// a deployment gets: wrangler.toml's vars and bindings, and locally the vars file over them. Run
// under `node --import tsx` (npm run dev, npm run deploy:check), which reads the TypeScript.
import path from "node:path";
import { unstable_readConfig } from "wrangler";
import { configurationProblems, SECRETS } from "../src/config.ts";

const configPath = path.resolve(import.meta.dirname, "..", "wrangler.toml");

/** The vars wrangler.toml sets and a stand-in for each binding it declares (present is all a check asks). */
export function declaredSettings(config = configPath) {
  const c = unstable_readConfig({ config }, { hideWarnings: true });
  const bindings = [
    ...c.d1_databases.map((d) => d.binding),
    ...c.durable_objects.bindings.map((b) => b.name),
    ...c.kv_namespaces.map((k) => k.binding),
    ...(c.queues.producers ?? []).map((q) => q.binding),
    ...c.ratelimits.map((r) => r.name),
    ...c.vectorize.map((v) => v.binding),
    ...(c.ai ? [c.ai.binding] : []),
  ];
  return { ...c.vars, ...Object.fromEntries(bindings.map((name) => [name, { binding: name }])) };
}

/** A local run's problems: wrangler.toml's settings with `vars` (.dev.vars, the demo's file) over them. */
export function localProblems(vars, config = configPath) {
  return configurationProblems({ ...declaredSettings(config), ...vars });
}

/**
 * A deployment's problems as far as wrangler.toml tells them: the secrets are put with `wrangler
 * secret put` and never seen here, so what only a secret could fix is left to /health.
 */
export function deployProblems(config = configPath) {
  return configurationProblems(declaredSettings(config)).filter((p) => !SECRETS.includes(p.setting));
}

/** The lines that tell the problems, one a setting. */
export const problemLines = (problems) => problems.map((p) => `  ${p.setting}: ${p.message}`);

import { env } from "cloudflare:workers";
import { createShards, DIRECTORY } from "../../src/db/shards";
import { createDeps, type Deps } from "../../src/deps";
import type { Semantic } from "../../src/embeddings/ports";
import { openAiCompatibleEmbedder } from "../../src/embeddings/providers";
import type { LanguageModel } from "../../src/llm/providers";
import { storeMemory } from "../../src/memory/memories";
import { embedPending, markMissing } from "../../src/memory/vectors";
import { bindMind, type MindContext, resolveMindContext } from "../../src/tenancy/mind-context";
import { createMind, ensureAccount } from "../../src/tenancy/minds";
import { memoryIndex } from "../../test/support/semantic";
import { type Conversation, dateTag, type Turn, turnContent } from "../lib/dataset";
import type { Endpoint } from "../lib/endpoint";

export interface BenchDepsOptions {
  /** Every database seen through this (a recording handle), as the Worker would see it. */
  wrap?: (d1: D1Database) => D1Database;
  llm?: LanguageModel | null;
  /** A deployment of one database (DB alone): what a part measuring one database's growth needs. */
  oneDatabase?: boolean;
}

/**
 * Domain dependencies over the job's databases, built as the Worker builds them: the directory
 * and every shard declared in wrangler.toml, so a mind's data is found where placement put it.
 */
export function benchDeps(options: BenchDepsOptions = {}): Deps {
  const bindings: Record<string, unknown> = { ...env };
  if (options.oneDatabase) for (const name of createShards(env).names) if (name !== DIRECTORY) delete bindings[name];
  const deps = createDeps(bindings as unknown as Env, { semantic: false, wrap: options.wrap });
  return { ...deps, model: () => options.llm ?? null };
}

/** A fresh account and mind (placed as the Worker places it), and the context of a human writing to it. */
export async function newMindScope(name: string, deps: Deps = benchDeps()): Promise<MindContext> {
  const account = await ensureAccount(deps, `bench-${name}`);
  const mind = await createMind(deps, account.id, { name });
  return resolveMindContext(deps, { kind: "human", accountId: account.id }, { mindId: mind.id });
}

/** A mind's context over other dependencies (a model, a recording handle), in the database that holds the mind. */
export function inMind<D extends Deps>(deps: D, mindContext: MindContext): D & MindContext {
  return { ...deps, ...bindMind(deps, mindContext.mind, mindContext.scope) };
}

/** The D1 binding that holds a mind's data, for statements no domain function sends (bulk fills, replays). */
export function mindD1(deps: Deps, mindContext: MindContext): D1Database {
  return deps.shards.db(mindContext.mind.shard).$client;
}

/** The turns around a turn in its session, as a memory's context: where the words were said. */
export function turnContext(turns: readonly Turn[], i: number): string {
  const t = turns[i]!;
  return [turns[i - 1], turns[i + 1]]
    .filter((n): n is Turn => n !== undefined && n.session === t.session)
    .map(turnContent)
    .join("\n");
}

/** Writes every turn as a memory through storeMemory, stated (`observed_at`) when its session was; returns each write's time in ms. */
export async function ingestConversation(deps: Deps, scope: MindContext, conversation: Conversation): Promise<number[]> {
  const times: number[] = [];
  for (const [i, turn] of conversation.turns.entries()) {
    const t0 = Date.now();
    await storeMemory(inMind(deps, scope), {
      category: "context",
      key: turn.id,
      content: turnContent(turn),
      tags: [dateTag(turn)],
      context: turnContext(conversation.turns, i),
      observed_at: turn.at,
    });
    times.push(Date.now() - t0);
  }
  return times;
}

/**
 * Embeds every memory of a mind written without the ports, as the hourly job backfills a
 * deployment that turned recall by meaning on: marked missing, then embedded in batches.
 */
export async function embedMind(deps: Deps & { semantic: Semantic }, scope: MindContext): Promise<void> {
  const mindContext = inMind(deps, scope);
  while ((await markMissing(mindContext, scope.mind.id)) > 0);
  let retries = EMBED_RETRIES;
  for (;;) {
    const done = await embedPending(mindContext, scope.mind);
    if (done.postponed > 0 || (done.failed > 0 && retries-- === 0)) throw new Error(`embedding ${scope.mind.name} failed or was postponed: not measured`);
    // A batch the local model took too long over (the machine busy) is due again at once.
    if (done.failed > 0) await mindD1(deps, scope).prepare("update embeddings set next_attempt_at = ? where mind_id = ? and state = 'pending'").bind(new Date(0).toISOString(), scope.mind.id).run();
    else if (done.embedded === 0) return;
  }
}

/** How many failed batches a mind's embedding tries again before the run gives up. */
const EMBED_RETRIES = 5;

/** Recall by meaning through the product's embedder for an OpenAI-compatible endpoint, an in-memory index in place of Vectorize. */
export const semanticOver = (endpoint: Endpoint): Semantic => ({
  embedder: openAiCompatibleEmbedder(endpoint.baseUrl, endpoint.model, endpoint.apiKey),
  index: memoryIndex(),
});

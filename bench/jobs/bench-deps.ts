import { env } from "cloudflare:workers";
import { resolveMindContext, type MindContext } from "../../src/minds/context";
import { systemClock } from "../../src/clock";
import { createDb } from "../../src/db/client";
import type { ModelDeps } from "../../src/llm/generate";
import type { LanguageModel } from "../../src/llm/providers";
import type { Deps } from "../../src/deps";
import { storeMemory } from "../../src/memory/memories";
import { createMind, ensureAccount } from "../../src/minds/minds";
import { dateTag, turnContent, type Conversation } from "../lib/dataset";

/** Domain dependencies over the job's database (optionally another D1 handle and a model). */
export function benchDeps(options: { d1?: D1Database; llm?: LanguageModel | null } = {}): ModelDeps {
  return { db: createDb(options.d1 ?? env.DB), clock: systemClock, llm: options.llm ?? null };
}

/** A fresh account and mind, and the context of a human writing to it. */
export async function newMindScope(name: string): Promise<MindContext> {
  const deps = benchDeps();
  const account = await ensureAccount(deps, `bench-${name}`);
  const mind = await createMind(deps, account.id, { name });
  return resolveMindContext(deps, { kind: "human", accountId: account.id }, { mindId: mind.id });
}

/** Writes every turn as a memory through storeMemory; returns each write's time in ms. */
export async function ingestConversation(deps: Deps, scope: MindContext, conversation: Conversation): Promise<number[]> {
  const times: number[] = [];
  for (const turn of conversation.turns) {
    const t0 = Date.now();
    await storeMemory({ ...scope, ...deps }, { category: "context", key: turn.id, content: turnContent(turn), tags: [dateTag(turn)] });
    times.push(Date.now() - t0);
  }
  return times;
}

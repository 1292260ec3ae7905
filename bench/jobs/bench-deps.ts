import { env } from "cloudflare:workers";
import type { Scope } from "../../src/auth/principal";
import { systemClock } from "../../src/clock";
import { createDb } from "../../src/db/client";
import type { ModelDeps } from "../../src/llm/generate";
import type { LanguageModel } from "../../src/llm/providers";
import type { Deps } from "../../src/deps";
import { storeMemory } from "../../src/memory/memories";
import { createMind, ensureAccount } from "../../src/minds/minds";
import { dateTag, turnContent, type Conversation, type Turn } from "../lib/dataset";

/** Domain dependencies over the job's database (optionally another D1 handle and a model). */
export function benchDeps(options: { d1?: D1Database; llm?: LanguageModel | null } = {}): ModelDeps {
  return { db: createDb(options.d1 ?? env.DB), clock: systemClock, llm: options.llm ?? null };
}

/** A fresh account and mind, and the scope a human writing to it works in. */
export async function newMindScope(name: string): Promise<Scope> {
  const deps = benchDeps();
  const account = await ensureAccount(deps, `bench-${name}`);
  const mind = await createMind(deps, account.id, { name });
  return { mindId: mind.id, principal: { kind: "human", accountId: account.id }, agent: "default", agentFilter: null };
}

/** The turns around a turn in its session, as a memory's context: where the words were said. */
export function turnContext(turns: readonly Turn[], i: number): string {
  const t = turns[i]!;
  return [turns[i - 1], turns[i + 1]]
    .filter((n): n is Turn => n !== undefined && n.session === t.session)
    .map(turnContent)
    .join("\n");
}

/** Writes every turn as a memory through storeMemory; returns each write's time in ms. */
export async function ingestConversation(deps: Deps, scope: Scope, conversation: Conversation): Promise<number[]> {
  const times: number[] = [];
  for (const [i, turn] of conversation.turns.entries()) {
    const t0 = Date.now();
    await storeMemory(deps, scope, {
      category: "context",
      key: turn.id,
      content: turnContent(turn),
      tags: [dateTag(turn)],
      context: turnContext(conversation.turns, i),
    });
    times.push(Date.now() - t0);
  }
  return times;
}

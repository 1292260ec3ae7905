import { env } from "cloudflare:workers";
import { it } from "vitest";
import { usageSince } from "../../src/llm/ledger";
import { storeMemory } from "../../src/memory/memories";
import { consolidateNotes } from "../../src/notes/consolidate";
import { extractNotes, type PlainMessage, saveExtraction } from "../../src/notes/extraction";
import { tokenAccountOf } from "../../src/tenancy/mind-context";
import { foldingTurn } from "../../test/support/long-term";
import { scriptedModel, section } from "../../test/support/scripted-model";
import type { Conversation } from "../lib/dataset";
import { benchDeps, inMind, newMindScope } from "./bench-deps";
import { report } from "./report";

const input = env.BENCH_INPUT as { conversations: Conversation[]; messages: number; extractEvery: number };

// A scripted extraction answer: one note for every user message it was shown, as a model
// that keeps what the user says about themselves would write.
const extractionTurn = (prompt: string) =>
  JSON.stringify({
    notes: section(prompt, "conversation")
      .map((line) => /^#(\d+) user: (.*)$/.exec(line))
      .filter((m) => m !== null)
      .slice(0, 30)
      .map((m) => ({ text: m[2]!.slice(0, 394), section: "context", signal: "fact", from: [Number(m[1])] })),
  });

/** Memories the mind holds before the conversation: the same conversation's later turns, so each extraction is shown some. */
const HELD_MEMORIES = 200;

/**
 * Extraction every `extractEvery` messages over a scripted conversation, then one consolidation,
 * in a mind that already holds memories on the same subjects: each extraction is shown those its
 * messages bring up, as many as its bound allows (src/notes/known-memories.ts).
 */
async function scriptedConversation() {
  const deps = benchDeps();
  const scope = await newMindScope("scripted", deps);
  const all = input.conversations[0]!.turns;
  for (const turn of all.slice(input.messages, input.messages + HELD_MEMORIES)) {
    await storeMemory(inMind(deps, scope), { category: "context", key: turn.id.toLowerCase().replace(/[^a-z0-9]+/g, "_"), content: turn.text });
  }
  const turns = all.slice(0, input.messages);
  const messages: PlainMessage[] = turns.map((t, i) => ({
    id: `m${String(i).padStart(4, "0")}`,
    role: i % 2 === 0 ? "user" : "assistant",
    content: t.text,
  }));
  const extraction = scriptedModel([extractionTurn], "counted");
  let cursor: string | null = null;
  let notes = 0;
  for (let end = input.extractEvery; end <= messages.length; end += input.extractEvery) {
    const batch = messages.slice(end - input.extractEvery, end);
    const job = { sessionId: "ses_bench", cursor, messages: batch };
    const plan = await extractNotes(inMind({ ...deps, model: () => extraction.model }, scope), job);
    if (plan.status !== "extracted") throw new Error(`extraction: ${plan.status}`);
    notes += (await saveExtraction(inMind(deps, scope), job, plan)).written;
    cursor = plan.cursor;
  }
  const consolidation = scriptedModel([foldingTurn], "counted");
  const outcome = await consolidateNotes(inMind({ ...deps, model: () => consolidation.model }, scope));
  if (outcome.status !== "done") throw new Error(`consolidation: ${outcome.status}`);
  const ledger = await usageSince(inMind(deps, scope), tokenAccountOf(scope), "2000-01-01");
  return { messages: messages.length, extractEvery: input.extractEvery, heldMemories: HELD_MEMORIES, notes, foldedNotes: outcome.foldedNotes, ledger };
}

it("model cost", async () => {
  report({ scripted: await scriptedConversation() });
});

// An agent with edgemind as its memory, offline: it stores what the user says, searches memory
// before answering, and answers from the context edgemind assembles (printed, part by part).
//   terminal 1: npm run dev                 the Worker on http://127.0.0.1:8787 (PORT=… for another)
//   terminal 2: npm run model:local         the stand-in model on http://127.0.0.1:8789 (PORT+2)
//   terminal 3: npm run client:build && npx tsx examples/agent/agent.ts ["something to say" …]
// EDGEMIND_URL and MODEL_URL point elsewhere; EDGEMIND_KEY uses an existing mind key instead of
// making a new mind with the ADMIN_TOKEN of .dev.vars.
import { readFileSync } from "node:fs";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createEdgemind, type EdgemindClient } from "@edgemind/client";
import { edgemindTools } from "@edgemind/client/ai";
import { generateText, stepCountIs } from "ai";

const url = process.env.EDGEMIND_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
// The stand-in model listens on PORT+2 unless MODEL_STAND_IN_PORT says otherwise (scripts/local.mjs).
const modelUrl = process.env.MODEL_URL ?? `http://127.0.0.1:${process.env.MODEL_STAND_IN_PORT ?? Number(process.env.PORT ?? 8787) + 2}/v1`;
const conversation = process.argv.length > 2
  ? process.argv.slice(2)
  : ["I drink green tea in the morning, never coffee.", "I deploy the edgemind Worker on Fridays.", "What do I drink in the morning?"];

/** A mind key: EDGEMIND_KEY, or a new account, mind and key made with the local ADMIN_TOKEN. */
async function mindKey(): Promise<string> {
  if (process.env.EDGEMIND_KEY) return process.env.EDGEMIND_KEY;
  const devVars = readFileSync(path.resolve(import.meta.dirname, "../../.dev.vars"), "utf8");
  const admin = /^ADMIN_TOKEN=(.+)$/m.exec(devVars)?.[1];
  if (!admin) throw new Error("no ADMIN_TOKEN in .dev.vars: run `npm run dev` once, or set EDGEMIND_KEY");
  // Routes the client has no shortcut for are all on `api`, typed from the OpenAPI document.
  const operator = createEdgemind({ url, key: admin }).api;
  const token = (await operator.POST("/auth/token", { body: { account: "example-agent" } })).data?.token;
  if (!token) throw new Error(`could not get a token from ${url}: is npm run dev running?`);
  const human = createEdgemind({ url, key: token }).api;
  const mind = (await human.POST("/minds", { body: { name: `agent example ${new Date().toISOString()}` } })).data;
  const key = mind && (await human.POST("/minds/{id}/keys", { params: { path: { id: mind.id } }, body: { agent: "example" } })).data?.key;
  if (!key) throw new Error("could not make a mind and a key");
  return key;
}

/** One turn: remember what was said, look it up, answer from the assembled context. */
async function turn(memory: EdgemindClient, sessionId: string, said: string): Promise<void> {
  console.log(`\nyou: ${said}`);
  await memory.sessions.addMessage(sessionId, { role: "user", content: said });
  const found = await memory.notes.search(said, { limit: 3 });
  console.log(`  searched memory: ${found.results.length} match${found.results.length === 1 ? "" : "es"}${found.results.map((n) => `\n    · ${n.text}`).join("")}`);
  if (!said.trim().endsWith("?")) {
    const note = await memory.notes.add({ text: said, session_id: sessionId });
    console.log(`  stored as ${note.id}`);
  }

  const context = await memory.sessions.context(sessionId, { q: said, max_tokens: 1500 });
  console.log(`  context given to the model (${context.tokens} of ${context.budget} tokens):`);
  for (const part of context.parts) {
    console.log(`    ${part.included ? "+" : "-"} ${part.part.padEnd(6)} ${part.reason.padEnd(14)} ${part.text.replace(/\s+/g, " ").slice(0, 70)}`);
  }

  const model = createOpenAICompatible({ name: "stand-in", baseURL: modelUrl })("stand-in");
  const { text } = await generateText({
    model,
    system: context.system,
    prompt: context.prompt,
    tools: edgemindTools(memory),
    stopWhen: stepCountIs(4),
  });
  await memory.sessions.addMessage(sessionId, { role: "assistant", content: text });
  console.log(`agent: ${text}`);
}

const memory = createEdgemind({ url, key: await mindKey() });
const { session } = await memory.sessions.create({ task_name: "example conversation" });
console.log(`edgemind at ${url}, model at ${modelUrl}, session ${session.id}`);
for (const said of conversation) await turn(memory, session.id, said);

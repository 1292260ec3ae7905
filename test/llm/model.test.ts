import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { answer, toolCall } from "../../scripts/model-stand-in-answers.mjs";
import { assembleContext } from "../../src/context/assemble";
import { AppError } from "../../src/errors";
import { generateObjectFor, generateTextFor, type ModelRequest } from "../../src/llm/generate";
import { usageSince, utcDay } from "../../src/llm/ledger";
import { createLanguageModel, readLlmConfig } from "../../src/llm/providers";
import { consolidateNotes } from "../../src/notes/consolidate";
import { type ExtractionInput, extractNotes, saveExtraction } from "../../src/notes/extraction";
import { newTenant } from "../helpers";
import { contextOfMind, depsOfMind, inMind, testDeps } from "../support/deps";
import { coldOf, newNotesMind } from "../support/long-term";
import { SCRIPTED_USAGE, scriptedModel } from "../support/scripted-model";

const Answer = z.object({ facts: z.array(z.string()) });

async function request(budget: number | null = null): Promise<ModelRequest> {
  const { mind } = await newTenant();
  return { account: { mindId: mind.id, dailyBudget: budget }, purpose: "extraction", system: "Answer in JSON.", prompt: "Say one fact." };
}

async function ledger(mindId: string) {
  return usageSince(await depsOfMind(mindId), { mindId }, "2000-01-01");
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("model calls through the AI SDK", () => {
  it("returns a validated object and records the call and its tokens", async () => {
    const req = await request();
    const scripted = scriptedModel(['{"facts":["likes tea"]}']);
    const answer = await generateObjectFor(await depsOfMind(req.account.mindId), scripted.model, req, Answer);
    expect(answer.value).toEqual({ facts: ["likes tea"] });
    expect(answer.calls).toBe(1);
    expect(scripted.systems[0]).toContain("Answer in JSON.");
    expect(await ledger(req.account.mindId)).toEqual([
      { day: utcDay(new Date()), purpose: "extraction", calls: 1, failures: 0, ...SCRIPTED_USAGE },
    ]);
  });

  it("retries a broken-JSON answer once and then succeeds", async () => {
    const req = await request();
    const scripted = scriptedModel(['{"facts": ["unterminated', '{"facts":["ok"]}']);
    const answer = await generateObjectFor(await depsOfMind(req.account.mindId), scripted.model, req, Answer);
    expect(answer.value.facts).toEqual(["ok"]);
    expect(answer.calls).toBe(2);
    expect(answer.usage.inputTokens).toBe(2 * SCRIPTED_USAGE.inputTokens);
    const [row] = await ledger(req.account.mindId);
    expect(row).toMatchObject({ calls: 2, failures: 1 });
  });

  it("fails with model_failed after two malformed answers (wrong shape counts too)", async () => {
    const req = await request();
    const scripted = scriptedModel(["not json at all", '{"facts":"a string, not a list"}']);
    const error = await failure(generateObjectFor(await depsOfMind(req.account.mindId), scripted.model, req, Answer));
    expect(error.code).toBe("model_failed");
    expect(scripted.prompts).toHaveLength(2);
    expect((await ledger(req.account.mindId))[0]).toMatchObject({ calls: 2, failures: 2 });
  });

  it("does not retry a model error itself and records it as a failed call", async () => {
    const req = await request();
    const scripted = scriptedModel([new Error("upstream exploded")]);
    const error = await failure(generateObjectFor(await depsOfMind(req.account.mindId), scripted.model, req, Answer));
    expect(error.code).toBe("model_failed");
    expect(error.message).toContain("upstream exploded");
    expect(scripted.prompts).toHaveLength(1);
    expect((await ledger(req.account.mindId))[0]).toMatchObject({ calls: 1, failures: 1, inputTokens: 0, outputTokens: 0 });
  });

  it("stops at the daily token budget before calling the model", async () => {
    const req = await request(SCRIPTED_USAGE.inputTokens + SCRIPTED_USAGE.outputTokens);
    const scripted = scriptedModel(["plain text"]);
    await generateTextFor(await depsOfMind(req.account.mindId), scripted.model, req);
    const error = await failure(generateTextFor(await depsOfMind(req.account.mindId), scripted.model, req));
    expect(error.code).toBe("budget_exceeded");
    expect(scripted.prompts).toHaveLength(1);
  });

  it("a budget of zero allows no call at all, and the budget is per UTC day", async () => {
    const req = await request(0);
    const scripted = scriptedModel(["x"]);
    expect((await failure(generateTextFor(await depsOfMind(req.account.mindId), scripted.model, req))).code).toBe("budget_exceeded");
    const spent = { ...req, account: { ...req.account, dailyBudget: 100 } };
    const yesterday = await depsOfMind(spent.account.mindId, { clock: { now: () => new Date(Date.now() - 86_400_000) } });
    await generateTextFor(yesterday, scripted.model, spent);
    await generateTextFor(await depsOfMind(spent.account.mindId), scripted.model, spent);
  });
});

describe("providers", () => {
  const base = {
    DB: {} as D1Database,
    SESSIONS: {} as Env["SESSIONS"],
    TELEGRAM_CHATS: {} as Env["TELEGRAM_CHATS"],
    OAUTH_KV: {} as KVNamespace,
    OAUTH_GRANTS: {} as Env["OAUTH_GRANTS"],
    RATE_LIMITS: {} as Env["RATE_LIMITS"],
    MIND_OPERATIONS: {} as Env["MIND_OPERATIONS"],
    ADMIN_TOKEN: "",
    JWT_SECRET: "",
  } satisfies Env;

  it("reads the provider from configuration, defaulting to none", () => {
    expect(readLlmConfig(base)).toEqual({ provider: "none" });
    expect(readLlmConfig({ ...base, LLM_BASE_URL: "http://127.0.0.1:11434/v1", LLM_MODEL: "qwen3" })).toMatchObject({
      provider: "openai-compatible",
      model: "qwen3",
    });
    expect(() => readLlmConfig({ ...base, LLM_PROVIDER: "magic" })).toThrow(/LLM_PROVIDER must be one of/);
    expect(() => readLlmConfig({ ...base, LLM_PROVIDER: "workers-ai" })).toThrow(/AI binding/);
    expect(() => readLlmConfig({ ...base, LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: "ftp://x", LLM_MODEL: "m" })).toThrow(
      /LLM_BASE_URL/,
    );
    expect(() => readLlmConfig({ ...base, LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: "http://x/v1" })).toThrow(/LLM_MODEL/);
    expect(createLanguageModel(readLlmConfig(base))).toBeNull();
  });

  it("adds /v1 to a base URL that is a bare origin and keeps any other path as given", () => {
    const baseUrl = (url: string) => (readLlmConfig({ ...base, LLM_BASE_URL: url, LLM_MODEL: "m" }) as { baseUrl: string }).baseUrl;
    expect(baseUrl("http://127.0.0.1:11434")).toBe("http://127.0.0.1:11434/v1");
    expect(baseUrl("http://127.0.0.1:11434/")).toBe("http://127.0.0.1:11434/v1");
    expect(baseUrl("http://127.0.0.1:11434/v1/")).toBe("http://127.0.0.1:11434/v1");
    expect(baseUrl("https://generativelanguage.googleapis.com/v1beta/openai/")).toBe("https://generativelanguage.googleapis.com/v1beta/openai");
  });

  it("speaks /v1/chat/completions to an OpenAI-compatible server and records its usage", async () => {
    const req = await request();
    const seen: { url: string; auth: string | null; body: Record<string, unknown> }[] = [];
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const r = new Request(input, init);
      seen.push({ url: r.url, auth: r.headers.get("Authorization"), body: await r.json() });
      return Response.json({
        id: "cmpl-1",
        object: "chat.completion",
        created: 1,
        model: "local-model",
        choices: [{ index: 0, message: { role: "assistant", content: '{"facts":["from the server"]}' }, finish_reason: "stop" }],
        usage: { prompt_tokens: 41, completion_tokens: 9, total_tokens: 50 },
      });
    });
    try {
      const model = createLanguageModel(
        readLlmConfig({ ...base, LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "local-model", LLM_API_KEY: "sk-test" }),
      )!;
      const answer = await generateObjectFor(await depsOfMind(req.account.mindId), model, req, Answer);
      expect(answer.value.facts).toEqual(["from the server"]);
    } finally {
      spy.mockRestore();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe("http://127.0.0.1:9/v1/chat/completions");
    expect(seen[0]!.auth).toBe("Bearer sk-test");
    expect(seen[0]!.body).toMatchObject({ model: "local-model" });
    expect((await ledger(req.account.mindId))[0]).toMatchObject({ calls: 1, inputTokens: 41, outputTokens: 9 });
  });

  it("counts tokens itself when a server reports no usage", async () => {
    const req = await request();
    const spy = vi.spyOn(globalThis, "fetch").mockResolvedValue(
      Response.json({
        id: "x",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "a short answer" }, finish_reason: "stop" }],
      }),
    );
    try {
      const model = createLanguageModel(readLlmConfig({ ...base, LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "m" }))!;
      await generateTextFor(await depsOfMind(req.account.mindId), model, req);
    } finally {
      spy.mockRestore();
    }
    const [row] = await ledger(req.account.mindId);
    expect(row!.inputTokens).toBeGreaterThan(3);
    expect(row!.outputTokens).toBe(3);
  });

  it("runs Workers AI through the AI binding", async () => {
    const req = await request();
    const runs: { model: string; inputs: { messages?: { role: string; content: string }[] } }[] = [];
    const binding = {
      run: async (model: string, inputs: { messages?: { role: string; content: string }[] }) => {
        runs.push({ model, inputs });
        return { response: '{"facts":["from workers ai"]}', usage: { prompt_tokens: 12, completion_tokens: 7 } };
      },
    } as unknown as Ai;
    const model = createLanguageModel(readLlmConfig({ ...base, LLM_PROVIDER: "workers-ai", AI: binding }))!;
    const answer = await generateObjectFor(await depsOfMind(req.account.mindId), model, req, Answer);
    expect(answer.value.facts).toEqual(["from workers ai"]);
    expect(runs[0]!.model).toBe("@cf/meta/llama-3.3-70b-instruct-fp8-fast");
    expect(runs[0]!.inputs.messages?.some((m) => m.content.includes("Say one fact."))).toBe(true);
    expect((await ledger(req.account.mindId))[0]).toMatchObject({ inputTokens: 12, outputTokens: 7 });
  });
});

describe("the offline stand-in model (npm run model:local)", () => {
  it("understands what edgemind sends it: extraction, consolidation and a chat turn", async () => {
    const standIn = scriptedModel([
      (prompt, _call, system) => answer({ messages: [{ role: "system", content: system }, { role: "user", content: prompt }] }),
    ]);
    const m = await newNotesMind();
    const deps = await contextOfMind(m.mindId, { llm: standIn.model });
    const extraction: ExtractionInput = {
      sessionId: "ses_stand_in",
      cursor: null,
      messages: [
        { id: "m1", role: "user", content: "I deploy with wrangler" },
        { id: "m2", role: "assistant", content: "Noted." },
        { id: "m3", role: "user", content: "Never deploy on Fridays" },
      ],
    };
    const plan = await extractNotes(deps, extraction);
    if (plan.status !== "extracted") throw new Error(`extraction: ${plan.status}`);
    expect(plan.notes.map((n) => n.text).sort()).toEqual(["I deploy with wrangler", "Never deploy on Fridays"]);
    await saveExtraction(deps, extraction, plan);

    expect((await consolidateNotes(deps)).status).toBe("done");
    const cold = (await coldOf(m.mindId)).text;
    expect(cold).toMatch(/## Avoid\n- Never deploy on Fridays/);
    expect(cold).toMatch(/## Work context\n- I deploy with wrangler/);

    const context = await assembleContext(await inMind(testDeps(), { mindId: m.mindId }), { q: "When do I deploy?" });
    const reply = answer({ messages: [{ role: "system", content: context.system }, { role: "user", content: "#1 user: When do I deploy?" }] });
    expect(reply).toMatch(/I was given [1-9]\d* remembered lines? and your message: “When do I deploy\?”/);
  });

  it("as an agent's model offered memory_search, searches for the last message first, then answers with what it found", () => {
    const tools = [{ type: "function", function: { name: "memory_search" } }];
    const asked = { tools, messages: [{ role: "user", content: "What do I drink in the morning?" }] };
    expect(toolCall(asked)).toEqual({ name: "memory_search", arguments: JSON.stringify({ q: "What do I drink in the morning?" }) });
    expect(toolCall({ messages: asked.messages })).toBeNull();
    const found = { results: [{ id: "mem_1", content: "Drinks green tea in the morning", verified: false }] };
    const answered = { tools, messages: [...asked.messages, { role: "tool", content: JSON.stringify(found) }] };
    expect(toolCall(answered)).toBeNull();
    expect(answer(answered)).toBe("(stand-in model) memory_search found 1: Drinks green tea in the morning.");
  });
});

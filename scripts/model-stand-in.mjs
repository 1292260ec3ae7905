// A stand-in OpenAI-compatible model server, for trying every model feature offline in a
// minute: it answers POST /v1/chat/completions with no model behind it. It recognises
// edgemind's three kinds of request by their instructions and answers each in the shape asked:
//   extraction    every line the person said becomes a note (JSON {"notes":[…]})
//   consolidation the current document's facts plus every new note, by section (JSON)
//   chat          a short reply that shows what the model was given (memory block, dialogue)
// Settings: MODEL_STAND_IN_PORT (default 8082). Point the Worker at it in .dev.vars:
//   LLM_PROVIDER=openai-compatible  LLM_BASE_URL=http://127.0.0.1:8082  LLM_MODEL=stand-in
import { createServer } from "node:http";

const port = Number(process.env.MODEL_STAND_IN_PORT ?? 8082);
const SECTIONS = ["profile", "preferences", "avoid", "techniques", "context", "glossary"];
const HEADINGS = {
  profile: ["Profile", "Профиль"],
  preferences: ["Preferences", "Предпочтения"],
  avoid: ["Avoid", "Чего избегать"],
  techniques: ["Techniques and tools", "Приёмы и инструменты"],
  context: ["Work context", "Рабочий контекст"],
  glossary: ["Glossary", "Глоссарий"],
};
const MAX_BODY = 4 * 1024 * 1024;

const between = (text, open, close) => {
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  return start < 0 || end < 0 ? "" : text.slice(start + open.length, end);
};

/** Each line the person said, as a note. */
function extract(prompt) {
  const notes = between(prompt, "<conversation>", "</conversation>")
    .split("\n\n")
    .map((turn) => /^(?:#(\d+) )?user: ([\s\S]*)$/.exec(turn.trim()))
    .filter((turn) => turn !== null)
    .map(([, number, said]) => ({ number: Number(number), text: said.replace(/\s+/g, " ").trim() }))
    .filter(({ text }) => text.length >= 3)
    .slice(0, 30)
    .map(({ number, text }) => ({
      text: text.slice(0, 500),
      ...(number > 0 && { from: [number] }),
      section: /\b(never|don't|do not|avoid)\b|никогда|не используй/i.test(text) ? "avoid" : "context",
      signal: /\b(never|don't|do not)\b|никогда|не /i.test(text) ? "prohibition" : "fact",
      confidence: 0.8,
    }));
  return { notes };
}

/** The document's facts kept in their sections, each new note added to the section it was hinted with. */
function consolidate(prompt) {
  const merged = Object.fromEntries(SECTIONS.map((s) => [s, []]));
  let current = "context";
  for (const line of between(prompt, "<document>", "</document>").split("\n")) {
    const heading = /^#+\s*(.+?)\s*$/.exec(line);
    if (heading) current = SECTIONS.find((s) => HEADINGS[s].includes(heading[1])) ?? "context";
    else if (/^\s*-\s+\S/.test(line)) merged[current].push(line.replace(/^\s*-\s+/, "").trim());
  }
  for (const line of between(prompt, "<notes>", "</notes>").split("\n")) {
    const note = /^- \[(\w+)\] (.+)$/.exec(line.trim());
    if (!note) continue;
    const section = SECTIONS.includes(note[1]) ? note[1] : "context";
    if (!merged[section].includes(note[2])) merged[section].push(note[2]);
  }
  return merged;
}

function chat(system, prompt) {
  // The data block is the one on lines of its own (the instructions name the tags in a sentence).
  const memory = between(`${system}\n${prompt}`, "\n<memory>\n", "\n</memory>");
  const facts = memory.split("\n").filter((l) => /^\s*-\s/.test(l)).length;
  const last = (prompt.trim().split("\n").filter(Boolean).at(-1) ?? "").replace(/^(#\d+ )?user: /, "");
  return `(stand-in model) I was given ${facts} remembered line${facts === 1 ? "" : "s"} and your message: “${last.slice(0, 200)}”.`;
}

function answer(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const text = (role) =>
    messages
      .filter((m) => m.role === role)
      .map((m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("")))
      .join("\n");
  const system = text("system");
  const prompt = text("user");
  if (system.includes('{"notes":[')) return JSON.stringify(extract(prompt));
  if (system.includes('"profile":[]')) return JSON.stringify(consolidate(prompt));
  return chat(system, prompt);
}

const tokens = (s) => Math.ceil(s.length / 4);

createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) req.destroy();
    else chunks.push(chunk);
  });
  req.on("end", () => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: "body is not JSON" } }));
      return;
    }
    const content = answer(body);
    const input = tokens(JSON.stringify(body.messages ?? []));
    console.log(`${new Date().toISOString()} ${body.model ?? "?"}: ${input} tokens in → ${content.slice(0, 100)}`);
    res.writeHead(200, { "Content-Type": "application/json" }).end(
      JSON.stringify({
        id: `chatcmpl-${Date.now()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? "stand-in",
        choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
        usage: { prompt_tokens: input, completion_tokens: tokens(content), total_tokens: input + tokens(content) },
      }),
    );
  });
}).listen(port, "127.0.0.1", () => console.log(`OpenAI-compatible stand-in model on http://127.0.0.1:${port}/v1/chat/completions`));

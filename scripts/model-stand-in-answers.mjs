// What the stand-in model answers, kept apart from its server so the Worker's tests can check
// that it still understands the requests edgemind sends (scripts/model-stand-in.mjs serves it).
// It recognises edgemind's three kinds of request by their instructions:
//   extraction    every line the person said becomes a note (JSON {"notes":[…]}); of the known
//                 memories shown, a line saying one's content is "same", a line holding every word
//                 of one's key (a coffee_order: "my coffee order is …") "replaces" it
//   consolidation the current document's facts plus every new note, by section (JSON)
//   chat          a short reply that shows what the model was given (memory block, dialogue)
// and an agent's: offered edgemind's memory_search tool, it searches for the person's last
// message first, then answers with what the search found.

const SECTIONS = ["profile", "preferences", "avoid", "techniques", "context", "glossary"];
const HEADINGS = {
  profile: ["Profile", "Профиль"],
  preferences: ["Preferences", "Предпочтения"],
  avoid: ["Avoid", "Чего избегать"],
  techniques: ["Techniques and tools", "Приёмы и инструменты"],
  context: ["Work context", "Рабочий контекст"],
  glossary: ["Glossary", "Глоссарий"],
};

const between = (text, open, close) => {
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  return start < 0 || end < 0 ? "" : text.slice(start + open.length, end);
};

const wordsOf = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The memories the prompt shows, as the stand-in compares lines with them: their key and content. */
function knownMemories(prompt) {
  return between(prompt, "<memories>", "</memories>")
    .split("\n")
    .map((line) => /^- ([a-z0-9_]+): (.*) \([^)]*\)$/.exec(line.trim()))
    .filter((m) => m !== null)
    .map(([, key, content]) => ({ key, content: wordsOf(content).join(" ") }));
}

/** What a line says of the known memories: the same as one, replacing one (it holds every word of its key), or nothing. */
function verdict(text, known) {
  const said = wordsOf(text);
  const same = known.find((m) => m.content === said.join(" "));
  if (same) return { same: same.key };
  const replaced = known.find((m) => m.key.split("_").every((part) => said.includes(part)));
  return replaced ? { replaces: replaced.key } : {};
}

/** Each line the person said, as a note, said to be the same as or to replace a known memory where it is. */
function extract(prompt) {
  const known = knownMemories(prompt);
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
      ...verdict(text, known),
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

const messagesOf = (body) => (Array.isArray(body.messages) ? body.messages : []);
const textOf = (m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join(""));

/**
 * The call an agent's model makes first when offered edgemind's memory_search tool: a search for
 * the person's last message. Null once a tool has answered, or when no such tool is offered.
 */
export function toolCall(body) {
  const offered = (Array.isArray(body.tools) ? body.tools : []).some((t) => t.function?.name === "memory_search");
  const messages = messagesOf(body);
  if (!offered || messages.some((m) => m.role === "tool")) return null;
  const said = textOf(messages.findLast((m) => m.role === "user") ?? {});
  return { name: "memory_search", arguments: JSON.stringify({ q: said.slice(0, 500) || "memory" }) };
}

/** The answer after the tools answered: the contents the search found, as the person would hear them. */
function fromTools(messages) {
  const found = messages
    .filter((m) => m.role === "tool")
    .flatMap((m) => {
      try {
        return (JSON.parse(textOf(m)).results ?? []).map((r) => r.content);
      } catch {
        return [];
      }
    });
  return `(stand-in model) memory_search found ${found.length}: ${found.slice(0, 3).join("; ") || "nothing"}.`;
}

/** The stand-in's answer to one chat completion request body. */
export function answer(body) {
  const messages = messagesOf(body);
  if (messages.some((m) => m.role === "tool")) return fromTools(messages);
  const text = (role) =>
    messages
      .filter((m) => m.role === role)
      .map(textOf)
      .join("\n");
  const system = text("system");
  const prompt = text("user");
  if (system.includes('{"notes":[')) return JSON.stringify(extract(prompt));
  if (system.includes('"profile":[]')) return JSON.stringify(consolidate(prompt));
  return chat(system, prompt);
}

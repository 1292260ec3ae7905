// A stand-in OpenAI-compatible model server, for trying every model feature offline in a
// minute: it answers POST /v1/chat/completions with no model behind it. It recognises
// edgemind's three kinds of request by their instructions and answers each in the shape asked:
//   extraction    every line the person said becomes a note (JSON {"notes":[…]})
//   consolidation the current document's facts plus every new note, by section (JSON)
//   chat          a short reply that shows what the model was given (memory block, dialogue)
// Settings: MODEL_STAND_IN_PORT (default 8082). Point the Worker at it in .dev.vars:
//   LLM_PROVIDER=openai-compatible  LLM_BASE_URL=http://127.0.0.1:8082  LLM_MODEL=stand-in
import { createServer } from "node:http";
import { answer } from "./model-stand-in-answers.mjs";

const port = Number(process.env.MODEL_STAND_IN_PORT ?? 8082);
const MAX_BODY = 4 * 1024 * 1024;

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

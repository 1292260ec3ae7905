// A stand-in OpenAI-compatible model server, for trying every model feature offline in a
// minute: it answers POST /v1/chat/completions with no model behind it. It recognises
// edgemind's three kinds of request by their instructions and answers each in the shape asked:
//   extraction    every line the person said becomes a note (JSON {"notes":[…]}), said to be the
//                 same as a known memory it repeats, or to replace one whose key's words it holds
//   consolidation the current document's facts plus every new note, by section (JSON)
//   chat          a short reply that shows what the model was given (memory block, dialogue)
// and calls edgemind's memory_search tool first when an agent offers it (an AI SDK agent).
// Settings: PORT (the Worker's, default 8787; this server listens on PORT+2, or on the port
// LLM_BASE_URL in .dev.vars already names), or MODEL_STAND_IN_PORT. Point the Worker at it in
// .dev.vars (with the default ports):
//   LLM_PROVIDER=openai-compatible  LLM_BASE_URL=http://127.0.0.1:8789  LLM_MODEL=stand-in
// `npm run demo` starts it for you, already pointed at.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { onBoundedBody, standInPort } from "./local.mjs";
import { answer, toolCall } from "./model-stand-in-answers.mjs";

const MAX_BODY = 4 * 1024 * 1024;

const tokens = (s) => Math.ceil(s.length / 4);

/** Serves the stand-in model on 127.0.0.1:port; `log` gets one line per answered request. */
export function startModelStandIn({ port, log = console.log }) {
  const server = createServer((req, res) => {
    onBoundedBody(req, MAX_BODY, (whole) => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      let body;
      try {
        body = JSON.parse(whole.toString("utf8"));
      } catch {
        res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: { message: "body is not JSON" } }));
        return;
      }
      const call = toolCall(body);
      const content = call ? "" : answer(body);
      const input = tokens(JSON.stringify(body.messages ?? []));
      log(`${new Date().toISOString()} ${body.model ?? "?"}: ${input} tokens in → ${call ? `${call.name}(${call.arguments})` : content.slice(0, 100)}`);
      const message = call
        ? { role: "assistant", content: null, tool_calls: [{ id: `call_${Date.now()}`, type: "function", function: call }] }
        : { role: "assistant", content };
      const output = tokens(content || JSON.stringify(call));
      res.writeHead(200, { "Content-Type": "application/json" }).end(
        JSON.stringify({
          id: `chatcmpl-${Date.now()}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? "stand-in",
          choices: [{ index: 0, message, finish_reason: call ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
        }),
      );
    });
  });
  return new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve(server)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = standInPort("model", "LLM_BASE_URL");
  await startModelStandIn({ port });
  console.log(`OpenAI-compatible stand-in model on http://127.0.0.1:${port}/v1/chat/completions`);
}

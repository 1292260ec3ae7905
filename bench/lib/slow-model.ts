import { createServer, type Server } from "node:http";
import { answer, type StandInRequest } from "../../scripts/model-stand-in-answers.mjs";

export interface SlowModel {
  url: string;
  /** Calls answered, and the most in flight at once, since the last reset. */
  stats(): { calls: number; maxInFlight: number };
  reset(): void;
  stop(): Promise<void>;
}

const tokens = (s: string) => Math.ceil(s.length / 4);

/**
 * The stand-in OpenAI-compatible model (scripts/model-stand-in-answers.mjs) answering every call
 * after a fixed delay, counting the calls in flight at once. Loopback only.
 */
export async function startSlowModel(delayMs: number): Promise<SlowModel> {
  let inFlight = 0;
  let maxInFlight = 0;
  let calls = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url?.endsWith("/stats")) {
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ calls, maxInFlight }));
        return;
      }
      if (req.url?.endsWith("/reset")) {
        calls = 0;
        maxInFlight = inFlight;
        res.writeHead(204).end();
        return;
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as StandInRequest & { model?: string };
      setTimeout(() => {
        const content = answer(body);
        const input = tokens(JSON.stringify(body.messages ?? []));
        inFlight--;
        calls++;
        res.writeHead(200, { "Content-Type": "application/json" }).end(
          JSON.stringify({
            id: `chatcmpl-${calls}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model ?? "stand-in",
            choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
            usage: { prompt_tokens: input, completion_tokens: tokens(content), total_tokens: input + tokens(content) },
          }),
        );
      }, delayMs);
    });
  });
  // workerd keeps connections open between calls: closing them after Node's 5 s default would
  // fail the first call after a pause on a dead connection, which is not what is measured here.
  server.keepAliveTimeout = 10 * 60_000;
  server.headersTimeout = 10 * 60_000 + 1_000;
  await new Promise<void>((resolve) => server.listen(Number(process.env.SLOW_MODEL_PORT ?? 0), "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ calls, maxInFlight }),
    reset: () => {
      calls = 0;
      maxInFlight = inFlight;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

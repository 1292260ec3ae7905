import { z } from "zod";
import { describeZodError, invalid } from "../../errors";
import { type JsonKind, type PickAnswer, pickedValues } from "./json-scan";
import type { JsonPath } from "./json-tokens";
import { Namespaces, notThisFormat, peerTimeField, refusedAt } from "./peer-lines";

// The first walk over a Letta Agent File (from-letta.ts): its layout, its agents' names, ids and
// blocks, and the file's blocks; messages and passages are passed by until the second walk.

const EXPECTED =
  "expected a Letta Agent File: an object with agents, blocks and tools (Agent File v2), or one agent with core_memory and messages (Agent File v1)";
/** An agent's fields the first walk reads; messages and passages wait for the second. */
const AGENT_FIELDS = ["name", "id", "block_ids", "memory_blocks", "core_memory", "created_at"];

const block = z.object({ label: z.string(), value: z.string() });
const fileBlock = block.extend({ id: z.string() });
const agentFields: Record<string, z.ZodType> = {
  name: z.string().nullish(),
  id: z.string().nullish(),
  block_ids: z.array(z.string()).nullish(),
  memory_blocks: z.array(block).nullish(),
  core_memory: z.array(block).nullish(),
  created_at: peerTimeField,
};

type Block = z.output<typeof block>;
export interface Agent {
  name: string | null;
  id: string | null;
  createdAt: string | null;
  blocks: Block[];
  blockIds: { id: string; path: JsonPath; line: number }[];
  namespace: string;
}
const newAgent = (): Agent => ({ name: null, id: null, createdAt: null, blocks: [], blockIds: [], namespace: "" });

/** v2 keeps its agents in `agents`; v1 is one agent, at the top of the file. */
export type Layout = "v1" | "v2";

/** Which agent a path of the file is in, and the path within that agent; null outside every agent. */
export function agentAt(path: JsonPath, layout: Layout): { index: number; rest: JsonPath } | null {
  if (layout === "v2") return path[0] === "agents" && typeof path[1] === "number" ? { index: path[1], rest: path.slice(2) } : null;
  return path[0] === "agents" ? null : { index: 0, rest: path };
}

export const listOf = (kind: JsonKind, what: string): PickAnswer => (kind === "array" ? "walk" : { refuse: `${what} must be a list` });

/** What the first walk finds: v1's agent at the top, v2's agents, the file's blocks. */
class Structure {
  readonly top = newAgent();
  readonly listed: Agent[] = [];
  readonly blocks = new Map<string, Block>();
  hasAgents = false;
  hasTopAgent = false;

  /** The first walk: the agents' names, ids and blocks, and the file's blocks; messages and passages are passed by. */
  readonly pick = (path: JsonPath, kind: JsonKind): PickAnswer => {
    if (path.length === 0) return kind === "object" ? "walk" : { refuse: "the file is not a JSON object" };
    const [first, second, third] = path;
    if (first === "blocks") return path.length === 1 ? listOf(kind, "blocks") : path.length === 2 ? "value" : "skip";
    if (first === "agents") {
      if (path.length === 1) {
        this.hasAgents = true;
        return listOf(kind, "agents");
      }
      if (path.length === 2) {
        this.listed[second as number] = newAgent();
        return kind === "object" ? "walk" : { refuse: "an agent must be an object" };
      }
      return path.length === 3 && AGENT_FIELDS.includes(third as string) ? "value" : "skip";
    }
    if (path.length !== 1) return "skip";
    if (first === "core_memory" || first === "messages") this.hasTopAgent = true;
    return AGENT_FIELDS.includes(first as string) ? "value" : "skip";
  };

  /** The file's layout and its agents, each with its blocks and namespace; a file of neither layout is refused. */
  agents(what: string): { agents: Agent[]; layout: Layout } {
    if (this.hasAgents) {
      if (this.listed.length === 0) throw invalid(`${what}: agents: the file holds no agent`);
      // v2's agents carry no time of their own: the file's is theirs.
      for (const agent of this.listed) agent.createdAt ??= this.top.createdAt;
      return { agents: resolveBlocks(this.listed, this.blocks, what), layout: "v2" };
    }
    if (this.hasTopAgent) return { agents: resolveBlocks([this.top], this.blocks, what), layout: "v1" };
    throw invalid(EXPECTED);
  }
}

/** The first walk, then each agent's blocks resolved and its namespace named. */
export function readAgents(bytes: Uint8Array, what: string): { agents: Agent[]; layout: Layout } {
  const structure = new Structure();
  let read = 0;
  try {
    for (const { path, value, line } of pickedValues(bytes, structure.pick, what)) {
      read++;
      if (path[0] === "blocks") {
        const parsed = fileBlock.safeParse(value);
        if (!parsed.success) throw refusedAt(what, path, line, describeZodError(parsed.error));
        structure.blocks.set(parsed.data.id, parsed.data);
        continue;
      }
      const field = String(path.at(-1));
      const parsed = agentFields[field]!.safeParse(value);
      if (!parsed.success) throw refusedAt(what, path, line, describeZodError(parsed.error));
      readAgentField(path[0] === "agents" ? structure.listed[path[1] as number]! : structure.top, field, parsed.data, path, line);
    }
  } catch (err) {
    // Before anything of an agent file was read, a file that is not JSON or not shaped as one is not one.
    throw read === 0 && !structure.hasAgents ? notThisFormat(err, EXPECTED) : err;
  }
  return structure.agents(what);
}

function readAgentField(agent: Agent, field: string, value: unknown, path: JsonPath, line: number): void {
  if (field === "name" || field === "id") agent[field] = (value as string | null | undefined) ?? null;
  else if (field === "created_at") agent.createdAt = (value as string | null | undefined) ?? null;
  else if (field === "block_ids") agent.blockIds.push(...((value as string[] | null) ?? []).map((id, i) => ({ id, path: [...path, i], line })));
  else agent.blocks.push(...((value as Block[] | null) ?? []));
}

/** Each agent's blocks: those it names by id, then its own; a block no agent names goes to the first agent. */
function resolveBlocks(agents: Agent[], fileBlocks: Map<string, Block>, what: string): Agent[] {
  const named = new Set<string>();
  const namespaces = new Namespaces();
  for (const [i, agent] of agents.entries()) {
    const own = agent.blockIds.map(({ id, path, line }) => {
      const found = fileBlocks.get(id);
      if (!found) throw refusedAt(what, path, line, `no block with id ${JSON.stringify(id)} in blocks`);
      named.add(id);
      return found;
    });
    agent.blocks = [...own, ...agent.blocks];
    agent.namespace = namespaces.of(`agent ${i}`, agent.name ?? agent.id ?? "letta");
  }
  agents[0]!.blocks.push(...[...fileBlocks.entries()].filter(([id]) => !named.has(id)).map(([, b]) => b));
  return agents;
}


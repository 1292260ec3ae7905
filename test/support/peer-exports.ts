// A mem0 export of many memories, in the shape Memory.get_all returns (output format v1.1: see
// test/portability/fixtures/README.md): several users and agents, categories, metadata, times
// with offsets, expiration dates and replaced memories, and texts that repeat across users.

export interface Mem0Entry {
  id: string;
  memory: string;
  hash: string;
  metadata: Record<string, unknown>;
  categories: string[];
  created_at: string;
  updated_at: string | null;
  user_id: string;
  agent_id?: string;
  expiration_date?: string;
  replaced_by?: string;
}

const USERS = ["alice", "bob", "carol", "dmitri", "Dana.K@example.org"];
const AGENTS = ["support-bot", "planner"];
/** The namespace each id of the export lands in (edgemind's names for them). */
const NAMESPACES: Record<string, string> = { "Dana.K@example.org": "dana-k-example-org" };
const CATEGORIES = ["personal_details", "food", "travel", "professional_details", "health", "hobbies", "user_preferences"];
const SUBJECTS = ["green tea", "sourdough bread", "the Lisbon trip", "marathon training", "the quarterly report", "jazz records", "a standing desk", "Spanish lessons"];
const FACTS = ["Likes", "Is planning", "Asked about", "Mentioned", "Wants reminders about", "Never wants to hear about", "Works on", "Is learning about"];

/** `count` memories (text padded by `padding` characters each); every 25th repeats an earlier memory's text in another namespace. */
export function mem0Thousand(count = 1000, padding = 0): { results: Mem0Entry[] } {
  const results: Mem0Entry[] = [];
  for (let i = 0; i < count; i++) {
    const repeat = i % 25 === 24;
    const text = repeat ? results[i - 21]!.memory : `${FACTS[i % FACTS.length]} ${SUBJECTS[(i >> 3) % SUBJECTS.length]}, note ${i}${padding ? ` ${"detail ".repeat(padding / 7)}` : ""}`;
    const day = new Date(Date.UTC(2025, 0, 1) + i * 3_600_000 * 7);
    const offset = i % 3 === 0 ? "-08:00" : "+00:00";
    const local = new Date(day.getTime() + (offset === "-08:00" ? -8 : 0) * 3_600_000).toISOString().replace("Z", "").replace(/\.(\d{3})$/, ".$1123");
    results.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      memory: text,
      hash: i.toString(16).padStart(32, "0"),
      metadata: { seq: i, source: i % 2 === 0 ? "chat" : "email" },
      categories: [CATEGORIES[i % CATEGORIES.length]!, ...(i % 4 === 0 ? [CATEGORIES[(i + 3) % CATEGORIES.length]!] : [])],
      created_at: `${local}${offset}`,
      updated_at: i % 5 === 0 ? new Date(day.getTime() + 86_400_000).toISOString() : null,
      user_id: USERS[i % USERS.length]!,
      ...(i % 7 === 0 && { agent_id: AGENTS[i % AGENTS.length] }),
      ...(i % 50 === 10 && { expiration_date: "2027-06-30" }),
      ...(i % 100 === 42 && { replaced_by: `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}` }),
    });
  }
  return { results };
}

/** The agent namespace an entry lands in: its agent's, else its user's. */
export const namespaceOf = (entry: Mem0Entry) => {
  const id = entry.agent_id ?? entry.user_id;
  return NAMESPACES[id] ?? id;
};

interface LettaFile {
  agents: { messages: Record<string, unknown>[] }[];
}

/**
 * A Letta Agent File (v2, as `file`) whose first agent's conversation is `turns` turns long: the
 * person asks (text padded by `padding` characters), the agent calls a tool, the tool answers.
 */
export function lettaLongConversation<T extends LettaFile>(file: T, turns: number, padding: number): T {
  const long = structuredClone(file);
  const at = (i: number, step: number) => new Date(Date.UTC(2026, 4, 6) + i * 60_000 + step * 1000).toISOString();
  const text = (value: string) => [{ type: "text", text: value, signature: null }];
  long.agents[0]!.messages = Array.from({ length: turns }, (_, i) => [
    { type: "message", id: `message-${3 * i}`, role: "user", content: text(`Bed ${i % 4}: how are the seedlings of week ${i}? ${"leaf ".repeat(padding / 5)}`), tool_calls: null, tool_call_id: null, created_at: at(i, 0) },
    {
      type: "message", id: `message-${3 * i + 1}`, role: "assistant", content: [], tool_call_id: null, created_at: at(i, 1),
      tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "check_seedlings", arguments: JSON.stringify({ week: i }) } }],
    },
    { type: "message", id: `message-${3 * i + 2}`, role: "tool", content: text(`{"week": ${i}, "status": "growing"}`), name: "check_seedlings", tool_calls: null, tool_call_id: `call_${i}`, created_at: at(i, 2) },
  ]).flat();
  return long;
}

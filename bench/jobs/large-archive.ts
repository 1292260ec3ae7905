import { IMPORT_MAX_BYTES } from "../../src/portability/archive";

const WORDS = "the quick brown fox jumps over a lazy dog while the river keeps running south past old mills".split(" ");
const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length]).join(" ");

/**
 * An archive just under `maxBytes` (the import bound by default): up to 10,000 memories of 200
 * words, then one chat with one long session of 5,000-word messages until the bytes run out.
 */
export function largeArchive(maxBytes = IMPORT_MAX_BYTES - 1024): { body: Uint8Array; lines: number } {
  const at = "2026-01-01T00:00:00.000Z";
  const lines = [
    JSON.stringify({ type: "header", format: "edgemind-mind", version: 1, exported_at: at, mind: { id: "m", name: "big", locale: "en", retention_hours: null, settings: {} } }),
  ];
  let size = lines[0]!.length;
  const add = (line: object) => {
    const text = JSON.stringify(line);
    if (size + text.length + 1 > maxBytes) return false;
    lines.push(text);
    size += text.length + 1;
    return true;
  };
  for (let i = 0; i < 10_000; i++) {
    add({ type: "memory", id: `mem_${i}`, agent: "default", category: "fact", key: `fact_${i}`, content: words(200, i), tags: ["bulk"], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at });
  }
  add({ type: "chat", id: "chat_1", kind: "api", external_id: "default", active_session_id: "ses_1", created_at: at });
  add({ type: "session", id: "ses_1", chat_id: "chat_1", repo_path: null, task_name: "long", conversation_id: "c", extracted_through_message_id: 0, created_at: at, last_message_at: at });
  for (let i = 1; add({ type: "message", id: i, session_id: "ses_1", role: "user", content: words(5000, i), ephemeral: false, tool: null, created_at: at }); i++);
  return { body: new TextEncoder().encode(lines.join("\n") + "\n"), lines: lines.length };
}

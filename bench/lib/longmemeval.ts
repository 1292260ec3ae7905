import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import type { Conversation, Question, Turn } from "./dataset";
import { QUESTION_KINDS } from "./longmemeval-kinds";

// LongMemEval (Wu et al., "LongMemEval: Benchmarking Chat Assistants on Long-Term Interactive
// Memory", ICLR 2025; MIT), oracle format: each question with the sessions that hold its answer,
// the turns that do marked `has_answer`. Only the development half lies beside the project; the
// other half is held back as the measure, so nothing is tuned on it. Read where it lies, never
// copied into the repository.
export const LONGMEMEVAL_PATH = process.env.LONGMEMEVAL_PATH ?? path.join(import.meta.dirname, "../../../shared/bench/longmemeval-dev.json.gz");

interface RawTurn {
  role: string;
  content: string;
  has_answer?: boolean;
}
interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  answer: string | number;
  answer_session_ids: string[];
  haystack_dates: string[];
  haystack_session_ids: string[];
  haystack_sessions: RawTurn[][];
}


export interface LongMemEval {
  /** Every session pooled into one conversation, oldest first: one mind holds them all. */
  conversation: Conversation;
  sessions: number;
  questions: number;
  /** Questions no turn answers (LongMemEval's abstention questions): not scored. */
  questionsWithoutEvidence: number;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DATE = /^(\d{4})\/(\d\d)\/(\d\d) \(\w+\) (\d\d):(\d\d)$/;

/** A LongMemEval date ("2023/05/21 (Sun) 19:50") as LoCoMo writes its session dates ("7:50 pm on 21 May, 2023") and as ISO. */
function sessionDate(raw: string): { date: string; at: string } {
  const m = DATE.exec(raw);
  if (!m) throw new Error(`unreadable session date: ${raw}`);
  const [, year, month, day, hour, minute] = m.map(Number) as [number, number, number, number, number, number];
  const clock = `${((hour + 11) % 12) + 1}:${String(minute).padStart(2, "0")} ${hour < 12 ? "am" : "pm"}`;
  return { date: `${clock} on ${day} ${MONTHS[month - 1]}, ${year}`, at: new Date(Date.UTC(year, month - 1, day, hour, minute)).toISOString() };
}

/**
 * Reads the data set: its sessions (shared between questions, each read once) pooled in date
 * order, one turn per message with key `s<session>_t<turn>` (words no question holds), and its
 * questions with the has_answer turns as evidence and the answer sessions beside them.
 */
export function loadLongMemEval(file = LONGMEMEVAL_PATH): LongMemEval {
  const raw = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as RawQuestion[];
  const sessions = new Map<string, { turns: RawTurn[]; date: string }>();
  for (const q of raw) q.haystack_session_ids.forEach((id, i) => sessions.has(id) || sessions.set(id, { turns: q.haystack_sessions[i]!, date: q.haystack_dates[i]! }));
  const ordered = [...sessions].map(([id, s]) => ({ id, ...s, ...sessionDate(s.date) })).sort((a, b) => a.at.localeCompare(b.at));
  const number = new Map(ordered.map((s, i) => [s.id, i + 1]));
  const turns: Turn[] = ordered.flatMap((s, i) =>
    s.turns.map((t, j): Turn => ({ id: `s${i + 1}_t${j + 1}`, session: i + 1, date: s.date, at: s.at, speaker: t.role, text: t.content })),
  );
  const questions: Question[] = [];
  for (const q of raw) {
    const evidence = q.haystack_session_ids.flatMap((id) =>
      sessions.get(id)!.turns.flatMap((t, j) => (t.has_answer ? [`s${number.get(id)}_t${j + 1}`] : [])),
    );
    if (evidence.length === 0) continue;
    questions.push({
      text: q.question,
      category: QUESTION_KINDS.indexOf(q.question_type as (typeof QUESTION_KINDS)[number]) + 1,
      evidence: [...new Set(evidence)],
      answer: String(q.answer),
      sessions: q.answer_session_ids.map((id) => number.get(id)!),
      asked: sessionDate(q.question_date).at,
    });
  }
  return {
    conversation: { id: "longmemeval", turns, questions },
    sessions: ordered.length,
    questions: raw.length,
    questionsWithoutEvidence: raw.length - questions.length,
  };
}

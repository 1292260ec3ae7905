import { readFileSync } from "node:fs";
import path from "node:path";
import { type Conversation, type Question, sessionInstant, type Turn } from "./dataset";

// LoCoMo is read where it lies (its licence forbids copying it into the repo).
export const LOCOMO_PATH = process.env.LOCOMO_PATH ?? path.join(import.meta.dirname, "../../../shared/bench/locomo10.json");

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: { question: string; category: number; evidence: string[]; answer?: string | number }[];
}

export interface Locomo {
  conversations: Conversation[];
  turns: number;
  questions: number;
  /** Evidence ids that are not of the form D<session>:<turn> or name no turn: skipped. */
  malformedEvidence: { sample: string; question: string; id: string }[];
  /** Questions left with no usable evidence id: not scored. */
  questionsWithoutEvidence: number;
}

const EVIDENCE_ID = /^D(\d+):(\d+)$/;

/** Reads the data set into conversations of turns (with speaker and session date) and questions. */
export function loadLocomo(file = LOCOMO_PATH): Locomo {
  const raw = JSON.parse(readFileSync(file, "utf8")) as RawSample[];
  const malformedEvidence: Locomo["malformedEvidence"] = [];
  let questionsWithoutEvidence = 0;
  let turnCount = 0;
  let questionCount = 0;
  const conversations = raw.map((sample): Conversation => {
    const turns: Turn[] = [];
    for (let s = 1; Array.isArray(sample.conversation[`session_${s}`]); s++) {
      const date = String(sample.conversation[`session_${s}_date_time`] ?? "");
      const at = sessionInstant(date);
      for (const t of sample.conversation[`session_${s}`] as RawTurn[]) {
        const caption = t.blip_caption ? ` [shares a photo: ${t.blip_caption}]` : "";
        turns.push({ id: t.dia_id, session: s, date, at, speaker: t.speaker, text: t.text + caption });
      }
    }
    const known = new Set(turns.map((t) => t.id));
    const questions: Question[] = [];
    for (const qa of sample.qa) {
      questionCount++;
      const evidence: string[] = [];
      for (const id of qa.evidence) {
        if (EVIDENCE_ID.test(id) && known.has(id)) evidence.push(id);
        else malformedEvidence.push({ sample: sample.sample_id, question: qa.question, id });
      }
      if (evidence.length === 0) {
        questionsWithoutEvidence++;
        continue;
      }
      questions.push({
        text: qa.question,
        category: qa.category,
        evidence: [...new Set(evidence)],
        ...(qa.answer !== undefined && { answer: String(qa.answer) }),
      });
    }
    turnCount += turns.length;
    return { id: sample.sample_id, turns, questions };
  });
  return { conversations, turns: turnCount, questions: questionCount, malformedEvidence, questionsWithoutEvidence };
}

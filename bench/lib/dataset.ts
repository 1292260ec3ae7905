// Shapes shared by the node runner and the jobs inside workerd: plain data only.

export interface Turn {
  /** LoCoMo's dialog id, e.g. D1:3. */
  id: string;
  session: number;
  /** The session's date as LoCoMo writes it, e.g. "1:56 pm on 8 May, 2023". */
  date: string;
  /** The same moment as ISO 8601 (read as UTC): when the turn was said. */
  at: string;
  speaker: string;
  text: string;
}

export interface Question {
  text: string;
  category: number;
  evidence: string[];
  /** The gold answer, as text; none for LoCoMo's adversarial questions. */
  answer?: string;
  /** The sessions that hold the answer, where the data set names them (LongMemEval). */
  sessions?: number[];
  /** When the question was asked (ISO 8601), where the data set says (LongMemEval): its "now". */
  asked?: string;
}

export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
}

/** The memory content a turn becomes: who said it, and what. */
export const turnContent = (t: Turn) => `${t.speaker}: ${t.text}`;

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const SESSION_DATE = /^(\d{1,2}):(\d\d) (am|pm) on (\d{1,2}) (\w+),? (\d{4})$/i;

/** A session date as LoCoMo writes it ("1:56 pm on 8 May, 2023") as ISO 8601, read as UTC. */
export function sessionInstant(date: string): string {
  const m = SESSION_DATE.exec(date.trim());
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unreadable session date: ${date}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** The session date as a tag, without the time of day: "8 may 2023". */
export const dateTag = (t: Turn) => t.date.replace(/^.*\bon\s+/, "").replaceAll(",", "");


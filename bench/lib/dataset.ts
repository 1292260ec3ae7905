// Shapes shared by the node runner and the jobs inside workerd: plain data only.

export interface Turn {
  /** LoCoMo's dialog id, e.g. D1:3. */
  id: string;
  session: number;
  /** The session's date as LoCoMo writes it, e.g. "1:56 pm on 8 May, 2023". */
  date: string;
  speaker: string;
  text: string;
}

export interface Question {
  text: string;
  category: number;
  evidence: string[];
  /** LoCoMo's gold answer, as text; none for the adversarial questions. */
  answer?: string;
}

export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
}

/** The memory content a turn becomes: who said it, and what. */
export const turnContent = (t: Turn) => `${t.speaker}: ${t.text}`;

/** The session date as a tag, without the time of day: "8 may 2023". */
export const dateTag = (t: Turn) => t.date.replace(/^.*\bon\s+/, "").replaceAll(",", "");

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** When a turn was said, from its session's date ("1:56 pm on 8 May, 2023"), in UTC: the memory's observed_at. */
export function turnTime(t: Turn): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})/i.exec(t.date);
  if (!m) throw new Error(`a LoCoMo date not understood: ${t.date}`);
  const [, hour, minute, half, day, month, year] = m;
  const hours = (Number(hour) % 12) + (half!.toLowerCase() === "pm" ? 12 : 0);
  const monthIndex = MONTHS.indexOf(month!.slice(0, 3).toLowerCase());
  if (monthIndex < 0) throw new Error(`a LoCoMo month not understood: ${t.date}`);
  return new Date(Date.UTC(Number(year), monthIndex, Number(day), hours, Number(minute))).toISOString();
}

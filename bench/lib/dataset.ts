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

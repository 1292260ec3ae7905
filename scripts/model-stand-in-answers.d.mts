/** A chat completion request body, as much of it as the stand-in reads. */
export interface StandInRequest {
  messages?: { role: string; content: string | { text?: string }[] }[];
}

/** The stand-in model's answer to one chat completion request. */
export function answer(body: StandInRequest): string;

/** A chat completion request body, as much of it as the stand-in reads. */
export interface StandInRequest {
  messages?: { role: string; content: string | { text?: string }[] }[];
  tools?: { type: string; function?: { name: string } }[];
}

/** The tool call an agent's model makes first when offered memory_search, or null. */
export function toolCall(body: StandInRequest): { name: string; arguments: string } | null;

/** The stand-in model's answer to one chat completion request. */
export function answer(body: StandInRequest): string;

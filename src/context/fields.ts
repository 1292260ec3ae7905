import { z } from "zod";
import { RETRIEVALS } from "../memory/hybrid-search";

// The one shape of an assembled context: the domain's types are inferred from it and REST
// derives its response schema (and the OpenAPI document's) from it.

export const CONTEXT_PARTS = ["window", "search", "recall", "cold"] as const;
export const CONTEXT_REASONS = ["fits", "latest_message", "duplicate", "over_budget"] as const;

/** One item offered to the context, taken or left out. */
export const contextItemRecord = z.object({
  part: z.enum(CONTEXT_PARTS),
  /** What it is: a message id, a memory id, a note id, or a cold memory section. */
  ref: z.string(),
  /** null for the dialogue and for cold memory, which are not facts of their own. */
  verified: z.boolean().nullable(),
  text: z.string(),
  tokens: z.number(),
  included: z.boolean(),
  reason: z.enum(CONTEXT_REASONS),
  /** The ref of the item this one repeats (reason "duplicate"). */
  duplicate_of: z.string().optional(),
});

/** What the model is given for one turn, with every item offered and its token cost. */
export const assembledContextRecord = z.object({
  session_id: z.string().nullable(),
  q: z.string().nullable(),
  budget: z.number(),
  tokens: z.number().describe("Tokens of system and prompt together"),
  parts: z.array(contextItemRecord),
  system: z.string().describe("Instructions and the <memory> data block"),
  prompt: z.string().describe("The dialogue, oldest first"),
  ephemeral_left_out: z
    .object({ messages: z.number(), rule: z.string() })
    .describe("Ephemeral tool output in the session, which the model never sees, and the rule that clears it"),
  retrieval: z.enum(RETRIEVALS).describe("How the search hits were found: full-text alone, or fused with recall by meaning"),
});

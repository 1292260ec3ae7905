import { and, asc, eq, gt } from "drizzle-orm";
import type { z } from "zod";
import { messages, sessions } from "../db/schema";
import type { Deps } from "../deps";
import { AppError } from "../errors";
import { type ExtractionInput, extractNotes, saveExtraction } from "../notes/extraction";
import { jobInNamespace, jobMindContext } from "../tenancy/mind-context";
import type { sessionExtractionRecord } from "./fields";
import type { SessionTarget } from "./rows";

/** What one extraction over a session did: its one shape is fields.ts'. */
export type SessionExtraction = z.output<typeof sessionExtractionRecord>;

// One run reads at most this many messages; extraction itself keeps to what fits one model call.
const MAX_MESSAGES = 400;

/**
 * Extracts notes from a session's non-ephemeral messages after its cursor and moves the
 * cursor in the same D1 batch, only if nobody moved it meanwhile. Notes go to the session's
 * namespace, so the key that wrote the dialogue reads them. With no model, over budget or on
 * a model failure the cursor stays, so no message is skipped. Only the session object calls this.
 */
export async function extractSession(deps: Deps, target: SessionTarget): Promise<SessionExtraction> {
  // The one read of the mind: its shard, and the locale and budget the model call needs.
  const mindContext = await jobMindContext(deps, "extraction", target.mindId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  });
  if (!mindContext) return { status: "not_found", notes: 0, extracted: null, remaining: 0, cursor: 0 };
  const { shard } = mindContext;
  const ofSession = and(eq(sessions.id, target.sessionId), eq(sessions.mindId, target.mindId));
  const session = await shard
    .select({ cursor: sessions.extractedThroughMessageId, agent: sessions.agent })
    .from(sessions)
    .where(ofSession)
    .get();
  if (!session) return { status: "not_found", notes: 0, extracted: null, remaining: 0, cursor: 0 };
  const after = await shard
    .select({ id: messages.id, role: messages.role, content: messages.content, createdAt: messages.createdAt })
    .from(messages)
    .where(
      and(
        eq(messages.sessionId, target.sessionId),
        eq(messages.mindId, target.mindId),
        eq(messages.ephemeral, false),
        gt(messages.id, session.cursor),
      ),
    )
    .orderBy(asc(messages.id))
    .limit(MAX_MESSAGES);
  // Notes go to the session's namespace.
  const inSession = jobInNamespace(mindContext, session.agent);
  const input: ExtractionInput = {
    sessionId: target.sessionId,
    cursor: session.cursor > 0 ? String(session.cursor) : null,
    messages: after.map((m) => ({ id: String(m.id), role: m.role, content: m.content, created_at: m.createdAt })),
  };
  const plan = await extractNotes(inSession, input);
  if (plan.status === "nothing") return { status: plan.status, notes: 0, extracted: 0, remaining: 0, cursor: session.cursor };
  if (plan.status !== "extracted") {
    return { status: plan.status, notes: 0, extracted: null, remaining: after.length, cursor: session.cursor };
  }
  const through = Number(plan.cursor);
  const moveCursor = shard
    .update(sessions)
    .set({ extractedThroughMessageId: through })
    .where(and(ofSession, eq(sessions.extractedThroughMessageId, session.cursor)));
  let written: number;
  try {
    ({ written } = await saveExtraction(inSession, input, plan, [moveCursor]));
  } catch (error) {
    if (!(error instanceof AppError && error.code === "quota_exceeded")) throw error;
    return { status: "quota", notes: 0, extracted: null, remaining: after.length, cursor: session.cursor };
  }
  const extracted = after.filter((m) => m.id <= through).length;
  return { status: "extracted", notes: written, extracted, remaining: after.length - extracted, cursor: through };
}

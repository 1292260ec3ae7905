import { AppError } from "../errors";
import type { MindContext } from "../tenancy/mind-context";
import type { SessionExtraction } from "./extract-notes";
import { type AppendResult, type ObjectResult, type SessionState, sessionObject } from "./objects";
import type { NewMessage } from "./rows";
import { getSession } from "./sessions";
import type { Dialogue } from "./windows";

// Writes to a session's history go through its object, which checks the tenant in SQL.

function unwrap<T extends object>(result: ObjectResult<T>): T {
  if (!result.ok) throw new AppError(result.code, result.message);
  const { ok: _ok, ...value } = result;
  return value as unknown as T;
}

/**
 * Appends a message to a session of the scope through its object, the single writer. The
 * object reads the session with the mind and namespace in SQL, so any other is not found.
 */
export async function appendMessage(mindContext: MindContext, sessionId: string, input: NewMessage): Promise<AppendResult> {
  return (await appendThroughObject(mindContext, sessionId, input, false)).appended;
}

/** Appends a message the model is to answer: the session's dialogue after it comes back with it, in the same batch. */
export async function appendForAnswer(mindContext: MindContext, sessionId: string, input: NewMessage): Promise<{ appended: AppendResult; dialogue: Dialogue }> {
  const { appended, dialogue } = await appendThroughObject(mindContext, sessionId, input, true);
  if (!dialogue) throw new Error("the session's object handed back no dialogue");
  return { appended, dialogue };
}

async function appendThroughObject(
  mindContext: MindContext,
  sessionId: string,
  input: NewMessage,
  dialogue: boolean,
): Promise<{ appended: AppendResult; dialogue: Dialogue | null }> {
  const { scope } = mindContext;
  const result = await sessionObject(mindContext.sessionObjects, sessionId).append(
    { mindId: scope.mindId, sessionId, shard: mindContext.mind.shard },
    input,
    { agentFilter: scope.agentFilter, settings: mindContext.mind.settings, dialogue },
  );
  const { bookmark, dialogue: read, ...appended } = unwrap<AppendResult & { bookmark: string | null; dialogue: Dialogue | null }>(result);
  if (bookmark !== null) mindContext.sawBookmark?.(bookmark);
  return { appended, dialogue: read };
}

/** Answers "Done?": yes deletes the ephemeral messages and clears the state, no keeps them. */
export async function completeSession(
  mindContext: MindContext,
  sessionId: string,
  confirmed: boolean,
): Promise<{ confirmed: boolean; cleared: number; state: SessionState }> {
  const { scope } = mindContext;
  await getSession(mindContext, sessionId);
  const result = await sessionObject(mindContext.sessionObjects, sessionId).complete({ mindId: scope.mindId, sessionId, shard: mindContext.mind.shard }, confirmed, { webhooks: mindContext.mind.webhooks });
  return { confirmed, ...unwrap<{ cleared: number; state: SessionState }>(result) };
}

/** Extracts notes from the session's dialogue after its cursor now, through its object. */
export async function extractSessionNow(
  mindContext: MindContext,
  sessionId: string,
): Promise<{ extraction: SessionExtraction; state: SessionState }> {
  const { scope } = mindContext;
  await getSession(mindContext, sessionId);
  const result = await sessionObject(mindContext.sessionObjects, sessionId).extract({ mindId: scope.mindId, sessionId, shard: mindContext.mind.shard });
  return unwrap<{ extraction: SessionExtraction; state: SessionState }>(result);
}

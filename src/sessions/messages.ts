import { AppError } from "../errors";
import type { NewMessage, MindScope } from "./model";
import { sessionObject, type AppendResult, type ObjectResult, type SessionDeps, type SessionState } from "./objects";
import { getSession } from "./sessions";

// Writes to a session's history go through its object, which checks the tenant in SQL.

function unwrap<T extends object>(result: ObjectResult<T>): T {
  if (!result.ok) throw new AppError(result.code, result.message);
  const { ok: _ok, ...value } = result;
  return value as unknown as T;
}

/**
 * Appends a message to a session of the scope's mind through its object, the single writer.
 * The object reads the session with the mind in SQL, so another mind's session is not found.
 */
export async function appendMessage(deps: SessionDeps, scope: MindScope, sessionId: string, input: NewMessage): Promise<AppendResult> {
  const result = await sessionObject(deps.sessionObjects, sessionId).append({ mindId: scope.mindId, sessionId }, input);
  return unwrap<AppendResult>(result);
}

/** Answers "Done?": yes deletes the ephemeral messages and clears the state, no keeps them. */
export async function completeSession(
  deps: SessionDeps,
  scope: MindScope,
  sessionId: string,
  confirmed: boolean,
): Promise<{ confirmed: boolean; cleared: number; state: SessionState }> {
  await getSession(deps, scope, sessionId);
  const result = await sessionObject(deps.sessionObjects, sessionId).complete({ mindId: scope.mindId, sessionId }, confirmed);
  return { confirmed, ...unwrap<{ cleared: number; state: SessionState }>(result) };
}

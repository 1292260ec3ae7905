import { describe, expect, it } from "vitest";
import { appendForAnswer } from "../../src/sessions/messages";
import { readDialogue } from "../../src/sessions/windows";
import { contextOfMind } from "../support/deps";
import { append, newAuth, openSession } from "./session-helpers";

// A message the model is to answer is appended with the dialogue after it read in the same
// batch, so the answer needs no window read: it must be the window a read would give.

describe("the dialogue an append hands back", () => {
  it("is the last llm_window non-ephemeral messages after the append, oldest first, with the ephemeral count", async () => {
    const auth = await newAuth({ llm_window: 3 });
    const session = await openSession(auth);
    for (const content of ["one", "two", "three"]) await append(auth, session.id, { content });
    await append(auth, session.id, { role: "tool", content: "tool output", ephemeral: true, tool: "build" });
    const mindContext = await contextOfMind(auth.mind);
    const { appended, dialogue } = await appendForAnswer(mindContext, session.id, { role: "user", content: "four" });
    expect(appended.message.content).toBe("four");
    expect(dialogue.window.map((m) => m.content)).toEqual(["two", "three", "four"]);
    expect(dialogue.ephemeral).toBe(1);
    expect(dialogue).toEqual(await readDialogue(mindContext, session.id));
  });

  it("is refused with the append for another mind's session, which gains nothing", async () => {
    const owner = await newAuth();
    const session = await openSession(owner);
    await append(owner, session.id, { content: "private" });
    const stranger = await contextOfMind((await newAuth()).mind);
    await expect(appendForAnswer(stranger, session.id, { role: "user", content: "let me in" })).rejects.toMatchObject({ code: "not_found" });
    const ownerCtx = await contextOfMind(owner.mind);
    expect((await readDialogue(ownerCtx, session.id)).window.map((m) => m.content)).toEqual(["private"]);
  });
});

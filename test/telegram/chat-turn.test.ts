import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createShards } from "../../src/db/shards";
import { recordingD1 } from "../support/recording-d1";
import { scriptedModel } from "../support/scripted-model";
import { chatObject, newPerson, send, standInTelegram, textUpdate, useModel } from "../support/telegram";

standInTelegram();

/** Makes the chat's object reach D1 through a recording handle; returns the log. */
async function recordChat(chatId: number): Promise<string[]> {
  const log: string[] = [];
  await runInDurableObject(chatObject(chatId), (instance) => {
    const target = instance as unknown as { deps: { directory: unknown; shards: unknown } };
    const shards = createShards({ ...env, DB: recordingD1(env.DB, log), SHARD_1: recordingD1(env.SHARD_1!, log) });
    target.deps = { ...target.deps, directory: shards.directory, shards };
  });
  return log;
}

const readsMind = (sql: string) => /from "minds"|join "minds"/.test(sql);

describe("one chat turn", () => {
  it("reads the mind once: identity resolves it, and the turn's domain calls take it from there", async () => {
    const p = newPerson();
    await useModel(p.chat.id, scriptedModel(["Hello!", "You asked about tea."]).model);
    await send(p, textUpdate(p, "hello"));
    const log = await recordChat(p.chat.id);

    await send(p, textUpdate(p, "what do I drink?"));
    console.log(`one chat turn: ${log.length} D1 statements from the chat's object, ${log.filter(readsMind).length} of them reading the mind`);
    expect(log.filter(readsMind)).toHaveLength(1);
    expect(log.length).toBeGreaterThan(0);
  });
});

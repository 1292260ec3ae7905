import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors";
import { newId } from "../../src/ids";
import { createMind, MIND_ID_ATTEMPTS } from "../../src/tenancy/minds";
import { call, newKey, newMind, newTenant, store } from "../helpers";
import { testDeps } from "../support/deps";

/** Rows a mind id has in either database: its mind row and its usage row. */
async function rowsOf(id: string): Promise<number> {
  let rows = 0;
  for (const d1 of [env.DB, env.SHARD_1!]) {
    rows += (await d1.prepare("select count(*) n from minds where id = ?").bind(id).first<number>("n"))!;
    rows += (await d1.prepare("select count(*) n from mind_usage where mind_id = ?").bind(id).first<number>("n"))!;
  }
  return rows;
}

/** Another id with the same search token as `id` (its last 12 letters and digits). */
const sameToken = (id: string, n = 0) => `mind_${"x".repeat(13)}${n}${id.slice(-12)}`;

describe("a new mind's search token is unique", () => {
  it("an id whose search token is taken is replaced by a fresh one, on either database", async () => {
    const shards = new Set<string>();
    for (let round = 0; round < 6 && shards.size < 2; round++) {
      const existing = await newTenant();
      const taken = sameToken(existing.mind.id);
      // New minds fill the emptier database: one more mind on every other round moves the next.
      if (round % 2 === 1) await newMind(existing.token);
      let drawn = 0;
      const mind = await createMind(testDeps(), existing.accountId, { name: "second" }, { newMindId: () => (drawn++ === 0 ? taken : newId("mind")) });
      expect(drawn).toBe(2);
      expect(mind.id).not.toBe(taken);
      expect(await rowsOf(taken)).toBe(0);
      shards.add(mind.shard);

      // The mind created on the second try works like any other.
      const { key } = await newKey(existing.token, mind.id);
      await store({ token: key }, { key: "k", content: "kept in the new mind" });
      expect((await call("GET", "/memory/search?q=kept", { token: key })).json.results).toHaveLength(1);
    }
    expect([...shards].sort()).toEqual(["DB", "SHARD_1"]);
  });

  it("after a bounded number of taken ids it answers conflict and leaves no row behind", async () => {
    for (let round = 0; round < 2; round++) {
      const existing = await newTenant();
      const tried: string[] = [];
      const failure = await createMind(testDeps(), existing.accountId, { name: "never" }, {
        newMindId: () => {
          tried.push(sameToken(existing.mind.id, tried.length));
          return tried.at(-1)!;
        },
      }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AppError);
      expect((failure as AppError).code).toBe("conflict");
      expect(tried).toHaveLength(MIND_ID_ATTEMPTS);
      for (const id of tried) expect(await rowsOf(id)).toBe(0);
    }
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { isMindMoving } from "../../src/errors";
import { addNote } from "../../src/notes/notes";
import { deleteMind } from "../../src/portability/erase";
import { type CallResult, call, newHuman, newMind } from "../helpers";
import { inMind, testDeps } from "../support/deps";

/** A mind of a new person on the named database (minds go to the emptier one, so a few are made). */
async function mindOn(shard: string) {
  const human = await newHuman();
  for (let attempt = 0; attempt < 8; attempt++) {
    const mind = await newMind(human.token);
    const row = await env.DB.prepare("select shard from minds where id = ?").bind(mind.id).first<{ shard: string }>();
    if (row?.shard === shard) return { ...human, mind };
  }
  throw new Error(`no mind landed on ${shard}`);
}

/** A D1 binding that runs `before` ahead of each round trip (a statement or a batch). */
function hookedD1(real: D1Database, before: () => Promise<void>): D1Database {
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    ({
      real: s,
      bind: (...values: unknown[]) => statement(s.bind(...values)),
      first: async (column?: string) => (await before(), column === undefined ? s.first() : s.first(column)),
      run: async () => (await before(), s.run()),
      all: async () => (await before(), s.all()),
      raw: async (options?: { columnNames?: boolean }) => (await before(), options?.columnNames ? s.raw({ columnNames: true }) : s.raw()),
    }) as unknown as D1PreparedStatement;
  const unwrap = (s: D1PreparedStatement) => (s as unknown as { real: D1PreparedStatement }).real;
  return {
    prepare: (query: string) => statement(real.prepare(query)),
    batch: async (statements: D1PreparedStatement[]) => (await before(), real.batch(statements.map(unwrap))),
    exec: (query: string) => real.exec(query),
  } as unknown as D1Database;
}

type Outcome = "written" | "refused";

describe("writes racing an erasure", () => {
  for (const shard of ["DB", "SHARD_1"]) {
    it(`on ${shard}: every write acknowledged is in the receipt; once the mind is fenced, every write is refused`, async () => {
      const t = await mindOn(shard);
      const auth = { token: t.token, mind: t.mind.id };
      expect((await call("POST", "/notes", { ...auth, body: { text: "before the erasure" } })).status).toBe(201);
      // A write already past the mind's lookup when the erasure begins, as a request in flight is.
      const inFlight = await inMind(testDeps(), { mindId: t.mind.id, principal: { kind: "human", accountId: t.accountId } });
      const outcomes: { api: Outcome; inFlight: Outcome }[] = [];
      const refusals: string[] = [];
      let n = 0;
      const write = async () => {
        n += 1;
        const api: CallResult = await call("POST", "/notes", { ...auth, body: { text: `through the API ${n}` } });
        if (api.status !== 201) refusals.push(api.status === 404 ? "not_found" : `${api.status}`);
        // Past its lookup, the write's own transaction meets the fence the database keeps.
        const direct = await addNote(inFlight, { text: `in flight ${n}` }).then(
          () => "written" as const,
          (err: unknown) => {
            refusals.push(isMindMoving(err) ? "fenced" : String(err));
            return "refused" as const;
          },
        );
        outcomes.push({ api: api.status === 201 ? "written" : "refused", inFlight: direct });
      };
      const counts = await deleteMind(testDeps({ wrap: (d1) => hookedD1(d1, write) }), t.accountId, t.mind.id);

      const written = outcomes.flatMap((o) => [o.api, o.inFlight]).filter((o) => o === "written").length;
      expect(written).toBeGreaterThan(0);
      expect(counts.notes).toBe(1 + written);
      // The fence holds: after the first refusal of each kind of write, nothing is written again.
      for (const kind of ["api", "inFlight"] as const) {
        const seq = outcomes.map((o) => o[kind]);
        const first = seq.indexOf("refused");
        expect(first, kind).toBeGreaterThan(-1);
        expect(seq.slice(first).every((o) => o === "refused"), kind).toBe(true);
      }
      expect(refusals.every((why) => why === "not_found" || why === "fenced"), JSON.stringify(refusals)).toBe(true);
      expect((await call("GET", `/minds/${t.mind.id}`, { token: t.token })).status).toBe(404);
    });
  }

  it("five writers on POST /notes while DELETE /minds/:id runs: the receipt counts every 201, nothing is left behind", async () => {
    const t = await mindOn("SHARD_1");
    const auth = { token: t.token, mind: t.mind.id };
    let erased = false;
    let acknowledged = 0;
    const writer = async (w: number) => {
      for (let n = 0; !erased && n < 200; n++) {
        const res = await call("POST", "/notes", { ...auth, body: { text: `writer ${w} note ${n}` } });
        if (res.status === 201) acknowledged += 1;
        else expect([404, 503], res.text).toContain(res.status);
      }
    };
    const writers = [1, 2, 3, 4, 5].map(writer);
    await call("GET", "/notes", auth);
    const erasure = await call("DELETE", `/minds/${t.mind.id}`, { token: t.token });
    erased = true;
    await Promise.all(writers);
    expect(erasure.status, erasure.text).toBe(200);
    expect(erasure.json.deleted.notes).toBe(acknowledged);
    const left = await env.SHARD_1!.prepare("select count(*) as n from notes where mind_id = ?").bind(t.mind.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

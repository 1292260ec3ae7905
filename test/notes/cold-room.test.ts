import { describe, expect, it } from "vitest";
import { COLD_MAX_CHARS, COLD_STORED_MAX_CHARS } from "../../src/notes/cold-store";
import { call } from "../helpers";
import { coldOf, documentOf, newNotesMind, writeColdAsConsolidation } from "../support/long-term";

// Consolidations may grow a cold document past what a person writes at once (COLD_MAX_CHARS).
// Its owner makes room by editing it: a write no longer than the version it replaces is taken up
// to the stored bound, as is a client's own consolidation; a write that grows it is not.

/** A notes mind whose document consolidations grew to about `chars` characters. */
async function grownMind(chars: number) {
  const m = await newNotesMind();
  const cold = await writeColdAsConsolidation(m.mindId, documentOf(chars));
  expect(cold.text.length).toBeGreaterThan(COLD_MAX_CHARS);
  return { ...m, cold };
}

/** JSON with every character past ASCII written as `\uXXXX`: the longest body a text makes. */
const escapedJson = (value: unknown) => JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

describe("making room in a cold document consolidations grew", () => {
  it("PUT /cold shortens it to a text still past COLD_MAX_CHARS", async () => {
    const m = await grownMind(4 * COLD_MAX_CHARS);
    const shorter = documentOf(40_000);
    const res = await call("PUT", "/cold", { ...m.auth, body: { text: shorter, version: m.cold.version } });
    expect(res.status, res.text).toBe(200);
    expect(await coldOf(m.mindId)).toMatchObject({ text: shorter, version: m.cold.version + 1 });
  });

  it("an edit in place of a document at the stored bound, its text all 4-byte characters sent escaped", async () => {
    const m = await newNotesMind();
    const fact = (i: number) => `- ${"😀".repeat(500)} ${i}\n`;
    const facts = Array.from({ length: 253 }, (_, i) => fact(i));
    const grown = await writeColdAsConsolidation(m.mindId, `## Profile\n${facts.join("")}`);
    expect(grown.text.length).toBeGreaterThan(COLD_STORED_MAX_CHARS - 2_000);
    const edited = grown.text.replace(fact(7), `- ${"😃".repeat(500)} 7\n`);
    expect(edited.length).toBe(grown.text.length);
    const res = await call("PUT", "/cold", { ...m.auth, rawBody: escapedJson({ text: edited, version: grown.version }), headers: { "Content-Type": "application/json" } });
    expect(res.status, res.text).toBe(200);
    expect((await coldOf(m.mindId)).text).toBe(edited);
  });

  it("a PUT that makes it longer past COLD_MAX_CHARS is refused with 400 naming the bounds, and nothing changes", async () => {
    const m = await grownMind(40_000);
    const longer = `${m.cold.text}- one more fact\n`;
    const res = await call("PUT", "/cold", { ...m.auth, body: { text: longer, version: m.cold.version } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("at most 32,000 characters, or up to 256,000") });
    expect(res.json.error.message).toContain(`no longer than the ${m.cold.text.length.toLocaleString("en")} it holds now`);
    expect(await coldOf(m.mindId)).toEqual(m.cold);

    const tooLong = await call("PUT", "/cold", { ...m.auth, body: { text: "x".repeat(COLD_STORED_MAX_CHARS + 1), version: m.cold.version } });
    expect(tooLong.status).toBe(400);
    expect(await coldOf(m.mindId)).toEqual(m.cold);
    // Up to COLD_MAX_CHARS a write always lands.
    const short = await call("PUT", "/cold", { ...m.auth, body: { text: "x".repeat(COLD_MAX_CHARS), version: m.cold.version } });
    expect(short.status).toBe(200);
  });

  it("a long write on a stale version answers memory_changed, as the compare-and-swap would", async () => {
    const m = await grownMind(40_000);
    const first = await call("PUT", "/cold", { ...m.auth, body: { text: documentOf(39_000), version: m.cold.version } });
    expect(first.status).toBe(200);
    const stale = await call("PUT", "/cold", { ...m.auth, body: { text: documentOf(38_000), version: m.cold.version } });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe("memory_changed");
    expect((await coldOf(m.mindId)).text).toBe(documentOf(39_000));
  });

  it("a client's consolidation writes back a document grown past COLD_MAX_CHARS", async () => {
    const m = await newNotesMind();
    await m.addNote("Keeps bees on the roof", "profile");
    const claim = await call("POST", "/cold/consolidations", { ...m.auth, body: {} });
    expect(claim.json.notes).toHaveLength(1);
    const merged = `${documentOf(40_000)}- Keeps bees on the roof\n`;
    const res = await call("PUT", "/cold", { ...m.auth, body: { text: merged, version: 0, consolidation_id: claim.json.consolidation_id } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ version: 1, folded_notes: 1 });
    expect((await coldOf(m.mindId)).text).toBe(merged);

    // Without a consolidation the same growth is refused.
    const grown = await call("PUT", "/cold", { ...m.auth, body: { text: `${merged}- and honey\n`, version: 1 } });
    expect(grown.status).toBe(400);
  });
});

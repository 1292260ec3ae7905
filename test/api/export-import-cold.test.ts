import { describe, expect, it } from "vitest";
import { COLD_MAX_CHARS } from "../../src/notes/cold-store";
import { IMPORT_INLINE_MAX_BYTES } from "../../src/portability/import/request";
import { call, newMind } from "../helpers";
import { testDeps } from "../support/deps";
import { coldOf, consolidate, newNotesMind, seedNotes, versionsOf } from "../support/long-term";

// A consolidation keeps every fact, so a cold document grows past what a person may write at
// once; the mind's export still imports, with the document and its versions as they were.

/** Distinct Russian notes of nearly a note's length each (two UTF-8 bytes a character). */
const longNotes = (count: number) =>
  Array.from({ length: count }, (_, i) => `Заметка номер ${i}: ${"предпочитает крепкий чай без сахара по утрам, ".repeat(38)}`.trim());

describe("a cold document past what a person writes", () => {
  it("exports and imports again with the same document and versions", { timeout: 60_000 }, async () => {
    const m = await newNotesMind();
    await seedNotes(m.mindId, longNotes(90));
    const target = { mindId: m.mindId, agent: "default" };
    for (let run = 0; run < 2; run++) expect(await consolidate(testDeps(), target, { maxNotes: 45, maxAttempts: 1 })).toMatchObject({ status: "done" });
    const grown = await coldOf(m.mindId);
    expect(grown).toMatchObject({ version: 2 });
    expect(grown.text.length).toBeGreaterThan(4 * COLD_MAX_CHARS);
    // Its lines are longer than an archive line could be before the stored bound was admitted (256 KB).
    expect(new TextEncoder().encode(JSON.stringify(grown.text)).length).toBeGreaterThan(256 * 1024);

    const archive = (await call("GET", `/minds/${m.mindId}/export`, { token: m.token })).text;
    expect(archive.length).toBeLessThan(IMPORT_INLINE_MAX_BYTES);
    const copy = await newMind(m.token);
    const imported = await call("POST", `/minds/${copy.id}/import`, { token: m.token, rawBody: archive, headers: { "Content-Type": "application/x-ndjson" } });
    expect(imported.status, imported.text).toBe(200);
    expect(imported.json.imported).toMatchObject({ cold_memory: 1, cold_versions: 2 });

    expect(await coldOf(copy.id)).toMatchObject({ text: grown.text, version: 2 });
    const texts = async (mindId: string) => (await versionsOf(mindId)).map((v) => [v.version, v.text]);
    expect(await texts(copy.id)).toEqual(await texts(m.mindId));
  });
});

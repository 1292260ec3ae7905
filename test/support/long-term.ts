import { and, asc, eq } from "drizzle-orm";
import { coldVersions, consolidations, notes } from "../../src/db/schema";
import type { Deps } from "../../src/deps";
import { compareAndSwapCold, getCold } from "../../src/notes/cold-store";
import { type ConsolidationOptions, consolidateNotes } from "../../src/notes/consolidate";
import { parseDocument, SECTION_IDS, type SectionId } from "../../src/notes/document";
import { noteValues } from "../../src/notes/notes";
import { jobMindContext } from "../../src/tenancy/mind-context";
import { storedBytes, writeWithinQuota } from "../../src/tenancy/quotas";
import { call, newHuman, newMind } from "../helpers";
import { contextOfMind, depsOfMind } from "./deps";
import { section } from "./scripted-model";

/** A human's new mind, and a way to write notes to it over HTTP. */
export async function newNotesMind(mind: Record<string, unknown> = {}) {
  const human = await newHuman();
  const created = await newMind(human.token, mind);
  const auth = { token: human.token, mind: created.id };
  const addNote = async (text: string, category_hint?: string, agent?: string) => {
    const res = await call("POST", "/notes", { ...auth, body: { text, ...(category_hint && { category_hint }), ...(agent && { agent }) } });
    if (res.status !== 201) throw new Error(`note: ${res.status} ${res.text}`);
    return res.json as { id: string; text: string };
  };
  return { ...human, mindId: created.id, auth, addNote };
}

/**
 * Stores waiting notes in one namespace with the columns the write path gives them
 * (noteValues), many per D1 batch: a seeding shortcut for a backlog of thousands, which no
 * test should send note by note. Their times go up by a millisecond each, oldest first.
 */
export async function seedNotes(mindId: string, texts: string[], hint = "context", agent = "default") {
  const { shard } = await depsOfMind(mindId);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const rows = texts.map((text, i) =>
    noteValues(
      { mindId, agent, text, sessionId: null, categoryHint: hint, source: "user", confidence: 1 },
      new Date(start + i).toISOString(),
    ),
  );
  for (let at = 0; at < rows.length; at += 500) {
    const [first, ...rest] = rows.slice(at, at + 500).map((row) => shard.insert(notes).values(row));
    await shard.batch([first!, ...rest]);
  }
}

/** Every note of the mind, oldest first, as stored. */
export async function storedNotes(mindId: string) {
  return (await depsOfMind(mindId))
    .shard.select()
    .from(notes)
    .where(eq(notes.mindId, mindId))
    .orderBy(asc(notes.createdAt), asc(notes.id));
}

/** Consolidates a namespace as the hourly job does: in its mind's context, read once. */
export async function consolidate(deps: Deps, target: { mindId: string; agent: string }, options?: ConsolidationOptions) {
  return consolidateNotes(await jobMindContext(deps, "consolidation", target.mindId, target.agent), options);
}

export async function coldOf(mindId: string, agent = "default") {
  const { shard } = await depsOfMind(mindId);
  return getCold({ shard, scope: { mindId, agent } });
}

/** A sectioned document of about `chars` characters (never more), facts of 200 characters each. */
export function documentOf(chars: number, label = "Written"): string {
  const lines = ["## Profile"];
  let length = lines[0]!.length + 1;
  for (let i = 0; length + 203 <= chars; i++) {
    const fact = `- ${label} fact ${String(i).padStart(5, "0")} `;
    lines.push(fact + "y".repeat(200 - fact.length + 2));
    length += 203;
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Writes a namespace's cold memory over its current version as a consolidation does, up to the
 * stored bound rather than a person's: a document consolidations grew, without the notes.
 */
export async function writeColdAsConsolidation(mindId: string, text: string, agent = "default") {
  const mindContext = await contextOfMind(mindId);
  const { version } = await coldOf(mindId, agent);
  const written = await writeWithinQuota(mindContext, { bytes: storedBytes(text) }, (guard) =>
    compareAndSwapCold(mindContext.shard, { mindId, agent, text, expectedVersion: version, author: "consolidation", now: new Date().toISOString(), guard }),
  );
  if (!written.ok) throw new Error(`cold memory of ${mindId} changed while it was written`);
  return coldOf(mindId, agent);
}

export async function versionsOf(mindId: string, agent = "default") {
  return (await depsOfMind(mindId))
    .shard.select()
    .from(coldVersions)
    .where(and(eq(coldVersions.mindId, mindId), eq(coldVersions.agent, agent)))
    .orderBy(asc(coldVersions.version));
}

export async function consolidationsOf(mindId: string) {
  return (await depsOfMind(mindId)).shard.select().from(consolidations).where(eq(consolidations.mindId, mindId)).orderBy(asc(consolidations.startedAt));
}

/**
 * A model turn that merges as a careful model would: it keeps the document's facts and adds
 * each note to the section it was hinted with, reading both from the prompt it was sent.
 */
export const foldingTurn = (prompt: string): string => {
  const doc = parseDocument(section(prompt, "document").join("\n"));
  for (const line of section(prompt, "notes")) {
    const match = /^- \[(\w+)\] (.*)$/.exec(line);
    if (!match) throw new Error(`unexpected note line: ${line}`);
    doc.sections[match[1] as SectionId].push(match[2]!);
  }
  return JSON.stringify(Object.fromEntries(SECTION_IDS.map((id) => [id, doc.sections[id]])));
};

/** How many times each text occurs as a fact line of the document. */
export function occurrences(document: string, text: string): number {
  return document.split("\n").filter((line) => line === `- ${text}`).length;
}

import { formatPatch, type StructuredPatch, structuredPatch } from "diff";
import { isoNow } from "../clock";
import { AppError, conflict, invalid, notFound } from "../errors";
import type { MindContext } from "../tenancy/mind-context";
import { actorOf, } from "../tenancy/principal";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import { type Claim, claimNotes, getConsolidation } from "./claims";
import { COLD_MAX_CHARS, COLD_STORED_MAX_CHARS, type Cold, compareAndSwapCold, getCold, getColdVersion } from "./cold-store";

// What the HTTP and MCP fronts do with cold memory, in a scope: read, compare-and-swap write
// (optionally closing a consolidation the client ran itself), diff and rollback.

export interface ColdUpdate {
  text: string;
  version: number;
  consolidation_id?: string;
}

export interface ColdDiff {
  from: number;
  to: number;
  added: number;
  removed: number;
  /** Unified diff of the two texts. */
  patch: string;
  /**
   * False when the texts differ in more than DIFF_MAX_EDITS lines: the patch then replaces
   * the whole document instead of searching for the shortest edit.
   */
  exact: boolean;
}

/** The most lines a diffed version may have; longer versions answer payload_too_large. */
export const DIFF_MAX_LINES = 4_000;
/** Past this many changed lines the diff stops searching (its cost grows with lines × edits). */
export const DIFF_MAX_EDITS = 500;

const memoryChanged = (current: number, expected: number) =>
  new AppError("memory_changed", `cold memory is at version ${current}, not ${expected}: read it again and merge`);

/** The scope's cold memory: its text and version. */
export async function readCold(mindContext: MindContext): Promise<Cold> {
  return getCold(mindContext);
}

/**
 * Writes cold memory only if `version` is still current; a stale version answers
 * memory_changed and changes nothing. With a consolidation id, exactly that consolidation's
 * notes are deleted in the same batch. The text's length is bounded as checkWrittenLength says.
 */
export async function updateCold(mindContext: MindContext, update: ColdUpdate): Promise<Cold & { folded_notes: number }> {
  const { scope } = mindContext;
  const { mindId, agent } = scope;
  if (update.consolidation_id !== undefined) await openConsolidation(mindContext, update.consolidation_id);
  await checkWrittenLength(mindContext, update);
  const result = await writeWithinQuota(mindContext, { bytes: storedBytes(update.text) }, (guard) =>
    compareAndSwapCold(mindContext.shard, {
      mindId,
      agent,
      text: update.text,
      expectedVersion: update.version,
      author: actorOf(scope.principal),
      now: isoNow(mindContext.clock),
      consolidationId: update.consolidation_id,
      guard,
      writer: { context: mindContext, actor: actorOf(scope.principal) },
    }),
  );
  if (!result.ok) {
    if (update.consolidation_id !== undefined) await openConsolidation(mindContext, update.consolidation_id);
    throw memoryChanged((await getCold(mindContext)).version, update.version);
  }
  return { ...(await getCold(mindContext)), folded_notes: result.foldedNotes };
}

const count = (n: number) => n.toLocaleString("en");

/**
 * A write may always leave up to COLD_MAX_CHARS characters. Up to COLD_STORED_MAX_CHARS, as a
 * consolidation may, when it is a consolidation (the client's own) or leaves the document no
 * longer than the version it replaces: a person makes room in a document consolidations grew.
 * That version's text is the current one only while `version` is current; a stale version is
 * refused as the compare-and-swap would refuse it, since the text of a version never changes.
 */
async function checkWrittenLength(mindContext: MindContext, update: ColdUpdate): Promise<void> {
  const length = update.text.length;
  if (length <= COLD_MAX_CHARS) return;
  if (length > COLD_STORED_MAX_CHARS) {
    throw invalid(`text: at most ${count(COLD_STORED_MAX_CHARS)} characters, the most cold memory holds; this text has ${count(length)}`);
  }
  if (update.consolidation_id !== undefined) return;
  const current = await getCold(mindContext);
  if (current.version !== update.version) throw memoryChanged(current.version, update.version);
  if (length <= current.text.length) return;
  throw invalid(
    `text: at most ${count(COLD_MAX_CHARS)} characters, or up to ${count(COLD_STORED_MAX_CHARS)} when it leaves the document no longer ` +
      `than the ${count(current.text.length)} it holds now; this text has ${count(length)}`,
  );
}

async function openConsolidation(mindContext: MindContext, id: string): Promise<void> {
  const consolidation = await getConsolidation(mindContext, id);
  if (!consolidation) throw notFound("consolidation");
  if (consolidation.status !== "running") throw conflict(`consolidation ${id} is ${consolidation.status}, no longer open`);
}

/** Writes the text of an earlier version as the new current version. */
export async function rollbackCold(mindContext: MindContext, version: number): Promise<Cold> {
  const { scope } = mindContext;
  const target = await getColdVersion(mindContext, version);
  if (!target) throw notFound(`cold memory version ${version}`);
  const current = await getCold(mindContext);
  if (current.version === version) throw invalid(`version ${version} is already the current version`);
  const result = await writeWithinQuota(mindContext, { bytes: storedBytes(target.text) }, (guard) =>
    compareAndSwapCold(mindContext.shard, {
      mindId: scope.mindId,
      agent: scope.agent,
      text: target.text,
      expectedVersion: current.version,
      author: `rollback to ${version} by ${actorOf(scope.principal)}`,
      now: isoNow(mindContext.clock),
      guard,
      writer: { context: mindContext, actor: actorOf(scope.principal) },
    }),
  );
  if (!result.ok) throw memoryChanged((await getCold(mindContext)).version, current.version);
  return getCold(mindContext);
}

/**
 * A line diff between two versions; version 0 is the empty document before the first write.
 * Bounded: each version has at most DIFF_MAX_LINES lines, and the search for the shortest
 * edit stops after DIFF_MAX_EDITS changed lines.
 */
export async function diffCold(mindContext: MindContext, from: number, to: number): Promise<ColdDiff> {
  const [before, after] = await Promise.all([versionText(mindContext, from), versionText(mindContext, to)]);
  for (const [version, text] of [[from, before], [to, after]] as const) {
    const lines = lineCount(text);
    if (lines > DIFF_MAX_LINES) {
      throw new AppError("payload_too_large", `a diff compares versions of at most ${DIFF_MAX_LINES} lines; version ${version} has ${lines}`);
    }
  }
  const exact = structuredPatch(`v${from}`, `v${to}`, before, after, "", "", { maxEditLength: DIFF_MAX_EDITS });
  const patch = exact ?? wholeReplacement(`v${from}`, `v${to}`, before, after);
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { from, to, added, removed, patch: formatPatch(patch), exact: exact !== undefined };
}

function lineCount(text: string): number {
  if (text === "") return 0;
  let count = text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** One hunk removing every line of `before` and adding every line of `after`. */
function wholeReplacement(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const split = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  const old = split(before);
  const next = split(after);
  const lines = [...old.map((l) => `-${l}`), ...next.map((l) => `+${l}`)];
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: "",
    newHeader: "",
    hunks: [{ oldStart: old.length === 0 ? 0 : 1, oldLines: old.length, newStart: next.length === 0 ? 0 : 1, newLines: next.length, lines }],
  };
}

async function versionText(mindContext: MindContext, version: number): Promise<string> {
  if (version === 0) return "";
  const found = await getColdVersion(mindContext, version);
  if (!found) throw notFound(`cold memory version ${version}`);
  return found.text;
}

/**
 * Claims the scope's waiting notes for a client that merges them itself, then writes the
 * result with `PUT /cold` and the returned consolidation id. Null when no note is waiting.
 */
export async function startClientConsolidation(
  mindContext: MindContext,
  limit: number,
): Promise<(Claim & { cold: Cold }) | null> {
  const claim = await claimNotes(mindContext, { mode: "client", limit });
  if (!claim) return null;
  return { ...claim, cold: await getCold(mindContext) };
}

import { createTwoFilesPatch, diffLines } from "diff";
import { actorOf, type Scope } from "../auth/principal";
import { isoNow } from "../clock";
import type { Deps } from "../deps";
import { AppError, conflict, invalid, notFound } from "../errors";
import { claimNotes, getConsolidation, type Claim } from "./claims";
import { compareAndSwapCold, getCold, getColdVersion, type Cold } from "./cold";

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
}

const memoryChanged = (current: number, expected: number) =>
  new AppError("memory_changed", `cold memory is at version ${current}, not ${expected}: read it again and merge`);

/** The scope's cold memory: its text and version. */
export async function readCold(deps: Deps, scope: Scope): Promise<Cold> {
  return getCold(deps, scope.mindId, scope.agent);
}

/**
 * Writes cold memory only if `version` is still current; a stale version answers
 * memory_changed and changes nothing. With a consolidation id, exactly that consolidation's
 * notes are deleted in the same batch.
 */
export async function updateCold(deps: Deps, scope: Scope, update: ColdUpdate): Promise<Cold & { folded_notes: number }> {
  const { mindId, agent } = scope;
  if (update.consolidation_id !== undefined) await openConsolidation(deps, scope, update.consolidation_id);
  const result = await compareAndSwapCold(deps.db, {
    mindId,
    agent,
    text: update.text,
    expectedVersion: update.version,
    author: actorOf(scope.principal),
    now: isoNow(deps.clock),
    consolidationId: update.consolidation_id,
  });
  if (!result.ok) {
    if (update.consolidation_id !== undefined) await openConsolidation(deps, scope, update.consolidation_id);
    throw memoryChanged((await getCold(deps, mindId, agent)).version, update.version);
  }
  return { ...(await getCold(deps, mindId, agent)), folded_notes: result.foldedNotes };
}

async function openConsolidation(deps: Deps, scope: Scope, id: string): Promise<void> {
  const consolidation = await getConsolidation(deps, scope.mindId, scope.agent, id);
  if (!consolidation) throw notFound("consolidation");
  if (consolidation.status !== "running") throw conflict(`consolidation ${id} is ${consolidation.status}, no longer open`);
}

/** Writes the text of an earlier version as the new current version. */
export async function rollbackCold(deps: Deps, scope: Scope, version: number): Promise<Cold> {
  const target = await getColdVersion(deps, scope.mindId, scope.agent, version);
  if (!target) throw notFound(`cold memory version ${version}`);
  const current = await getCold(deps, scope.mindId, scope.agent);
  if (current.version === version) throw invalid(`version ${version} is already the current version`);
  const result = await compareAndSwapCold(deps.db, {
    mindId: scope.mindId,
    agent: scope.agent,
    text: target.text,
    expectedVersion: current.version,
    author: `rollback to ${version} by ${actorOf(scope.principal)}`,
    now: isoNow(deps.clock),
  });
  if (!result.ok) throw memoryChanged((await getCold(deps, scope.mindId, scope.agent)).version, current.version);
  return getCold(deps, scope.mindId, scope.agent);
}

/** A line diff between two versions; version 0 is the empty document before the first write. */
export async function diffCold(deps: Deps, scope: Scope, from: number, to: number): Promise<ColdDiff> {
  const [before, after] = await Promise.all([versionText(deps, scope, from), versionText(deps, scope, to)]);
  let added = 0;
  let removed = 0;
  for (const change of diffLines(before, after)) {
    if (change.added) added += change.count;
    if (change.removed) removed += change.count;
  }
  return { from, to, added, removed, patch: createTwoFilesPatch(`v${from}`, `v${to}`, before, after) };
}

async function versionText(deps: Deps, scope: Scope, version: number): Promise<string> {
  if (version === 0) return "";
  const found = await getColdVersion(deps, scope.mindId, scope.agent, version);
  if (!found) throw notFound(`cold memory version ${version}`);
  return found.text;
}

/**
 * Claims the scope's waiting notes for a client that merges them itself, then writes the
 * result with `PUT /cold` and the returned consolidation id. Null when no note is waiting.
 */
export async function startClientConsolidation(
  deps: Deps,
  scope: Scope,
  limit: number,
): Promise<(Claim & { cold: Cold }) | null> {
  const claim = await claimNotes(deps, { mindId: scope.mindId, agent: scope.agent, mode: "client", limit });
  if (!claim) return null;
  return { ...claim, cold: await getCold(deps, scope.mindId, scope.agent) };
}

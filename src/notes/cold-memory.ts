import type { MindContext } from "../minds/context";
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
export async function readCold(ctx: MindContext): Promise<Cold> {
  return getCold(ctx, ctx.scope.mindId, ctx.scope.agent);
}

/**
 * Writes cold memory only if `version` is still current; a stale version answers
 * memory_changed and changes nothing. With a consolidation id, exactly that consolidation's
 * notes are deleted in the same batch.
 */
export async function updateCold(ctx: MindContext, update: ColdUpdate): Promise<Cold & { folded_notes: number }> {
  const { scope } = ctx;
  const { mindId, agent } = scope;
  if (update.consolidation_id !== undefined) await openConsolidation(ctx, update.consolidation_id);
  const result = await compareAndSwapCold(ctx.db, {
    mindId,
    agent,
    text: update.text,
    expectedVersion: update.version,
    author: actorOf(scope.principal),
    now: isoNow(ctx.clock),
    consolidationId: update.consolidation_id,
  });
  if (!result.ok) {
    if (update.consolidation_id !== undefined) await openConsolidation(ctx, update.consolidation_id);
    throw memoryChanged((await getCold(ctx, mindId, agent)).version, update.version);
  }
  return { ...(await getCold(ctx, mindId, agent)), folded_notes: result.foldedNotes };
}

async function openConsolidation(ctx: MindContext, id: string): Promise<void> {
  const { scope } = ctx;
  const consolidation = await getConsolidation(ctx, scope.mindId, scope.agent, id);
  if (!consolidation) throw notFound("consolidation");
  if (consolidation.status !== "running") throw conflict(`consolidation ${id} is ${consolidation.status}, no longer open`);
}

/** Writes the text of an earlier version as the new current version. */
export async function rollbackCold(ctx: MindContext, version: number): Promise<Cold> {
  const { scope } = ctx;
  const target = await getColdVersion(ctx, scope.mindId, scope.agent, version);
  if (!target) throw notFound(`cold memory version ${version}`);
  const current = await getCold(ctx, scope.mindId, scope.agent);
  if (current.version === version) throw invalid(`version ${version} is already the current version`);
  const result = await compareAndSwapCold(ctx.db, {
    mindId: scope.mindId,
    agent: scope.agent,
    text: target.text,
    expectedVersion: current.version,
    author: `rollback to ${version} by ${actorOf(scope.principal)}`,
    now: isoNow(ctx.clock),
  });
  if (!result.ok) throw memoryChanged((await getCold(ctx, scope.mindId, scope.agent)).version, current.version);
  return getCold(ctx, scope.mindId, scope.agent);
}

/** A line diff between two versions; version 0 is the empty document before the first write. */
export async function diffCold(ctx: MindContext, from: number, to: number): Promise<ColdDiff> {
  const { scope } = ctx;
  const [before, after] = await Promise.all([versionText(ctx, from), versionText(ctx, to)]);
  let added = 0;
  let removed = 0;
  for (const change of diffLines(before, after)) {
    if (change.added) added += change.count;
    if (change.removed) removed += change.count;
  }
  return { from, to, added, removed, patch: createTwoFilesPatch(`v${from}`, `v${to}`, before, after) };
}

async function versionText(ctx: MindContext, version: number): Promise<string> {
  const { scope } = ctx;
  if (version === 0) return "";
  const found = await getColdVersion(ctx, scope.mindId, scope.agent, version);
  if (!found) throw notFound(`cold memory version ${version}`);
  return found.text;
}

/**
 * Claims the scope's waiting notes for a client that merges them itself, then writes the
 * result with `PUT /cold` and the returned consolidation id. Null when no note is waiting.
 */
export async function startClientConsolidation(
  ctx: MindContext,
  limit: number,
): Promise<(Claim & { cold: Cold }) | null> {
  const { scope } = ctx;
  const claim = await claimNotes(ctx, { mindId: scope.mindId, agent: scope.agent, mode: "client", limit });
  if (!claim) return null;
  return { ...claim, cold: await getCold(ctx, scope.mindId, scope.agent) };
}

import type { Db } from "../db/client";
import type { Deps } from "../deps";
import { forbidden, invalid, notFound } from "../errors";
import { isMindId } from "../ids";
import type { TokenAccount } from "../llm/ledger";
import { knownMindById, knownMindOf } from "./directory-cache";
import { getMindById, type Mind } from "./minds";
import {
  boundMindOf,
  checkAgentName,
  DEFAULT_AGENT,
  namespaceLimitOf,
  type Principal,
  type Scope,
} from "./principal";

/**
 * Everything domain code needs to work in one mind, resolved once at the edge: the mind's
 * row (name, locale, settings, budget), the caller's scope with the namespace rules
 * applied, and the database that holds the mind's data, beside the entry point's deps.
 */
export interface MindContext extends Deps {
  /** The mind's row, settings included: nothing in the mind's context reads it again. */
  mind: Mind;
  scope: Scope;
  /** The database that holds the mind's data (`deps.directory` stays the directory). */
  shard: Db;
  /** Told the bookmark of a write made outside `shard`'s session (a session's object), so the caller gets one that covers it. */
  sawBookmark?: (bookmark: string) => void;
}

/** What a front asks for: a mind (humans must name one) and an agent namespace. */
export interface MindRequest {
  mindId?: string | null;
  agent?: string | null;
}

/**
 * The mind a request names in X-Mind-Id: null when it names none. Anything but a mind id is
 * refused (400) before it reaches a lookup or a cache, whatever its length.
 */
export function requestedMindId(header: string | null | undefined): string | null {
  const value = header?.trim() ?? "";
  if (value === "") return null;
  if (!isMindId(value)) throw invalid(`X-Mind-Id: not a mind id (${value.length} characters); expected mind_ followed by 26 letters and digits`);
  return value;
}

/**
 * Resolves a principal and the requested mind and namespace into a `MindContext`. A principal
 * bound to a mind implies it (naming another is not_found); a human must own the mind they
 * name. A principal limited to one namespace may not leave it. The mind comes from this
 * isolate's directory cache (src/tenancy/directory-cache.ts) or one directory read.
 */
export async function resolveMindContext(deps: Deps, principal: Principal, request: MindRequest = {}): Promise<MindContext> {
  const requestedAgent = request.agent ?? null;
  if (requestedAgent !== null) checkAgentName(requestedAgent);
  const bound = boundMindOf(principal);
  const mindId = requestedMindId(request.mindId);
  let mind: Mind;
  if (bound !== null) {
    if (mindId !== null && mindId !== bound) throw notFound("mind");
    mind = await knownMindById(deps, bound);
  } else {
    if (mindId === null) throw invalid("X-Mind-Id header is required with a human's token");
    if (principal.kind !== "human") throw notFound("mind");
    mind = await knownMindOf(deps, principal.accountId, mindId);
  }
  const limit = namespaceLimitOf(principal);
  if (limit !== null && requestedAgent !== null && requestedAgent !== limit) {
    throw outsideNamespace(limit);
  }
  const agentFilter = limit ?? requestedAgent;
  return bindMind(deps, mind, { mindId: mind.id, principal, agent: agentFilter ?? DEFAULT_AGENT, agentFilter });
}

/**
 * The context of a mind already read (a journaled Telegram identity, a mind just created):
 * no database call. Its scope must come from `resolveMindContext` or `personalScope`.
 */
export function bindMind(deps: Deps, mind: Mind, scope: Scope): MindContext {
  return { ...deps, shard: deps.shards.db(mind.shard), mind, scope };
}

/** A person's scope over a mind they may use: every namespace for reads, `default` for writes. */
export function personalScope(principal: Principal & { kind: "human" | "telegram" }, mindId: string): Scope {
  return { mindId, principal, agent: DEFAULT_AGENT, agentFilter: null };
}

/**
 * The same context writing to another agent namespace (a note's `agent`, the UI's cold memory
 * page): a principal limited to one namespace may not leave it, and a request already
 * narrowed to one namespace cannot name a second.
 */
export function inNamespace(mindContext: MindContext, agent: string | undefined): MindContext {
  const { scope } = mindContext;
  if (agent === undefined || agent === scope.agent) return mindContext;
  checkAgentName(agent);
  const limit = namespaceLimitOf(scope.principal);
  if (limit !== null && agent !== limit) throw outsideNamespace(limit);
  if (scope.agentFilter !== null) throw invalid(`agent "${agent}" in the body differs from ?agent=${scope.agentFilter}`);
  return { ...mindContext, scope: { ...scope, agent } };
}

/** A background job's context for one mind (each cron's per-mind loop). */
export async function jobMindContext(deps: Deps, job: string, mindId: string, agent: string = DEFAULT_AGENT): Promise<MindContext> {
  const mind = await getMindById(deps, mindId);
  return bindMind(deps, mind, { mindId, principal: { kind: "system", job, mindId }, agent, agentFilter: agent });
}

/**
 * A background job's context moved to another namespace of its mind, one its work was found in
 * (a session's): a job is bound to no namespace, so it is not refused as a caller would be.
 */
export function jobInNamespace(mindContext: MindContext, agent: string): MindContext {
  if (mindContext.scope.principal.kind !== "system") throw new Error("only a background job's context moves between namespaces unchecked");
  return { ...mindContext, scope: { ...mindContext.scope, agent, agentFilter: agent } };
}

/**
 * The same context reading one agent namespace only (null: every namespace the scope allows);
 * a principal limited to one namespace cannot read another.
 */
export function readingNamespace(mindContext: MindContext, agent: string | null): MindContext {
  const limit = namespaceLimitOf(mindContext.scope.principal);
  if (limit !== null && agent !== null && agent !== limit) throw outsideNamespace(limit);
  return { ...mindContext, scope: { ...mindContext.scope, agentFilter: limit ?? agent } };
}

/** The account a model call in this mind spends from: the mind and its daily token budget. */
export function tokenAccountOf({ mind }: { mind: Pick<Mind, "id" | "settings"> }): TokenAccount {
  return { mindId: mind.id, dailyBudget: mind.settings.daily_token_budget };
}

const outsideNamespace = (limit: string) => forbidden(`this key is limited to the agent namespace "${limit}"`);

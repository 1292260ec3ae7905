import { z } from "zod";
import { invalid } from "../errors";
/**
/**
 * Who is asking. A human holds a JWT or a UI cookie and names the mind; the other kinds are
 * bound to one mind: an agent holding a mind key (REST or MCP), an OAuth client a person
 * granted one mind to (it works there as an agent does), a person speaking in a Telegram chat
 * (the chat's mind), a background job working through one mind.
 */
export type Principal =
  | { kind: "human"; accountId: string }
  | { kind: "agent"; keyId: string; keyPrefix: string; mindId: string; agent: string | null }
  | { kind: "client"; grantId: string; clientName: string; mindId: string; agent: string | null }
  | { kind: "telegram"; accountId: string; mindId: string }
  | { kind: "system"; job: string; mindId: string };

/**
 * The tenant a request works in. `agent` is the namespace writes go to; `agentFilter` is
 * the namespace reads are limited to (null: every namespace of the mind).
 */
export interface Scope {
  mindId: string;
  principal: Principal;
  agent: string;
  agentFilter: string | null;
}

export const DEFAULT_AGENT = "default";
/** Names of agent namespaces: 1-64 lower-case letters, digits, '-' or '_'. */
export const AGENT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const AGENT_RULE = "use 1-64 lower-case letters, digits, '-' or '_'";
/** An agent namespace's name in a request body, query or archive. */
export const agentName = z.string().regex(AGENT_PATTERN, AGENT_RULE);

/** The name itself, or a 400 that states the rule. */
export function checkAgentName(agent: string): string {
  if (!AGENT_PATTERN.test(agent)) throw invalid(`agent: ${AGENT_RULE}`);
  return agent;
}

/** A person's own word: their writes are verified and they may verify. */
export function isPerson(principal: Principal): boolean {
  return principal.kind === "human" || principal.kind === "telegram";
}

/** The mind a principal is bound to, or null for a human who names it per request. */
export function boundMindOf(principal: Principal): string | null {
  return "mindId" in principal ? principal.mindId : null;
}

/** The one agent namespace a principal is limited to, or null. */
export function namespaceLimitOf(principal: Principal): string | null {
  return "agent" in principal ? principal.agent : null;
}

/** How history records who made a change. */
export function actorOf(principal: Principal): string {
  switch (principal.kind) {
    case "human":
    case "telegram":
      return `user:${principal.accountId}`;
    case "agent":
      return `key:${principal.keyPrefix}`;
    case "client":
      return `oauth:${principal.grantId}`;
    case "system":
      return `system:${principal.job}`;
  }
}

/**
 * Who is asking: a human with a JWT, an agent holding a mind key, or an OAuth client a person
 * granted one mind to (it works there as an agent does).
 */
export type Principal =
  | { kind: "human"; accountId: string }
  | { kind: "agent"; keyId: string; keyPrefix: string; mindId: string; agent: string | null }
  | { kind: "client"; grantId: string; clientName: string; mindId: string; agent: string | null };

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
/** An agent namespace name. */
export const AGENT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** How history records who made a change. */
export function actorOf(principal: Principal): string {
  switch (principal.kind) {
    case "human":
      return `user:${principal.accountId}`;
    case "agent":
      return `key:${principal.keyPrefix}`;
    case "client":
      return `oauth:${principal.grantId}`;
  }
}

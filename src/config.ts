import type { SessionObject } from "./sessions/session-object";

/** Bindings and secrets the Worker is given (wrangler.toml, .dev.vars, `wrangler secret put`). */
export interface Env {
  DB: D1Database;
  /** One session object per session: the single writer of its history. */
  SESSIONS: DurableObjectNamespace<SessionObject>;
  ADMIN_TOKEN: string;
  JWT_SECRET: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  /** "production" turns on settings that only make sense behind HTTPS. */
  ENVIRONMENT?: string;
}

export interface AuthConfig {
  adminToken: string;
  jwtSecret: Uint8Array;
  issuer: string;
  audience: string;
  tokenTtlSeconds: number;
}

const MIN_SECRET_LENGTH = 16;

/** Reads the auth settings once per request; a missing or short secret is a configuration error. */
export function readAuthConfig(env: Env): AuthConfig {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < MIN_SECRET_LENGTH) {
    throw new Error(`JWT_SECRET must be set to at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (!env.ADMIN_TOKEN || env.ADMIN_TOKEN.length < MIN_SECRET_LENGTH) {
    throw new Error(`ADMIN_TOKEN must be set to at least ${MIN_SECRET_LENGTH} characters`);
  }
  return {
    adminToken: env.ADMIN_TOKEN,
    jwtSecret: new TextEncoder().encode(env.JWT_SECRET),
    issuer: env.JWT_ISSUER ?? "edgemind",
    audience: env.JWT_AUDIENCE ?? "edgemind-api",
    tokenTtlSeconds: 24 * 60 * 60,
  };
}

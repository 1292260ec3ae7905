// Types of scripts/demo-world.mjs for the TypeScript that imports it (test/node).
export type Api = (
  method: string,
  route: string,
  token: string,
  options?: { body?: unknown; mind?: string },
) => Promise<unknown>;

export const DEMO_ACCOUNT: string;
export const DEMO_TOOL: string;
export const DEMO_TASK: string;
export function restClient(base: string): Api;
export function demoMind(
  api: Api,
  adminToken: string,
): Promise<{ token: string; mind: { id: string; name: string; created_at: string }; chat: { id: string; active_session_id: string | null } }>;
export function demoSession(api: Api, key: string): Promise<string>;
export function demoKey(api: Api, token: string, mindId: string, file: string): Promise<{ key: string; kept: boolean }>;
export function demoLoginLink(api: Api, token: string, mindId: string): Promise<{ url: string; expiresAt: string }>;
export function postToolOutput(api: Api, key: string, chatId: string, text: string): Promise<string | null>;

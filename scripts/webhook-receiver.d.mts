// Types of scripts/webhook-receiver.mjs for the TypeScript that imports it (test/node).
import type { Server } from "node:http";

export function verifies(secret: string, headers: Record<string, string | string[] | undefined>, body: Buffer): boolean;
export function describe(event: Record<string, unknown>): string;
export function startWebhookReceiver(options: { port: number; secrets?: () => string[]; status?: number; full?: boolean; log?: (line: string) => void }): Promise<Server>;
export function subscribe(base: string, token: string, mindId: string, url: string): Promise<{ id: string; secret: string }>;

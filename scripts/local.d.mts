// Types of scripts/local.mjs for the TypeScript that imports it (test/node).
import type { ChildProcess, StdioOptions } from "node:child_process";

export const root: string;
export const wrangler: string;
export const devVarsPath: string;
export const wranglerEnv: NodeJS.ProcessEnv;
export function localPorts(env?: Record<string, string | undefined>): { worker: number; telegram: number; model: number; webhooks: number };
export function standInPort(kind: "telegram" | "model", setting: string): number;
export function newSecret(): string;
export function portIsFree(port: number): Promise<boolean>;
export function readVars(file?: string): Record<string, string>;
export function ensureDevVars(): void;
export function applyMigrations(options?: { persistTo?: string }): Promise<boolean>;
export function inspectorArgs(env?: Record<string, string | undefined>): string[];
export function startWorker(port: number, extraArgs?: string[], options?: { stdio?: StdioOptions; detached?: boolean; inspectorPort?: number }): ChildProcess;
export interface LocalWorker {
  base: string;
  worker: ChildProcess;
  output(): string;
  stop(): void;
}
export function startLocalWorker(options: { persistTo: string; vars?: Record<string, string>; port?: number; timeoutMs?: number }): Promise<LocalWorker>;
export function freePort(): Promise<number>;
export function onBoundedBody(req: import("node:http").IncomingMessage, max: number, handle: (body: Buffer) => void): void;

// Types of scripts/telegram-stand-in.mjs for the TypeScript that imports it (test/node).
import type { Server } from "node:http";

export function telegramSettings(
  port: number,
  secret?: string,
): { TELEGRAM_BOT_TOKEN: string; TELEGRAM_WEBHOOK_SECRET: string; TELEGRAM_BOT_USERNAME: string; TELEGRAM_API_ROOT: string };
export const LOCAL_USER_ID: number;
export function languageOf(lang: string | undefined): "en" | "ru";
export function startTelegramStandIn(options: {
  port: number;
  worker: string;
  secret: string;
  language?: "en" | "ru";
  print?: (line: string) => void;
}): Promise<{ server: Server; say(line: string): void; nextReply(ms: number): Promise<string | null> }>;

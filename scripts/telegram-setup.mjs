// Registers the deployed Worker with Telegram: POST /telegram/setup makes the Worker call
// setWebhook (its /telegram/webhook URL, TELEGRAM_WEBHOOK_SECRET, the update types it handles)
// and setMyCommands (English, and Russian for language_code ru).
//   EDGEMIND_URL=https://edgemind.<you>.workers.dev ADMIN_TOKEN=… npm run telegram:setup
// Without EDGEMIND_URL it talks to the local `npm run dev` with the ADMIN_TOKEN of .dev.vars.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const devVars = path.join(root, ".dev.vars");
const local = existsSync(devVars) ? Object.fromEntries(readFileSync(devVars, "utf8").split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)])) : {};

const base = (process.env.EDGEMIND_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const token = process.env.ADMIN_TOKEN ?? local.ADMIN_TOKEN;
if (!token) {
  console.error("set ADMIN_TOKEN (the Worker's admin secret)");
  process.exit(1);
}
const response = await fetch(`${base}/telegram/setup`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });
const body = await response.text();
console.log(response.status, body);
if (!response.ok) process.exit(1);

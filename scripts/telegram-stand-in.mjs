// A local stand-in for the Telegram Bot API, for trying the bot with `npm run dev` and no
// network: it answers the bot's Bot API calls (and prints what the bot says), and turns each
// line typed here into a Telegram update posted to the local webhook.
//   1. npm run telegram:local        (adds the TELEGRAM_* settings to .dev.vars if missing)
//   2. npm run dev                   (in another terminal; restart it after step 1 changed .dev.vars)
//   3. type messages or commands here: /start, /remember I like tea, /task new docs, …
// Settings: PORT (the Worker's, default 8787; this server listens on PORT+1, or on the port
// TELEGRAM_API_ROOT in .dev.vars already names), or EDGEMIND_URL and STAND_IN_PORT to set either
// apart; LANG (ru… makes the local user Russian-speaking).
// `npm run demo` starts it for you, on ports that agree with the Worker's.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { devVarsPath, localPorts, newSecret, readVars, standInPort } from "./local.mjs";

/** The bot's settings that point the Worker at a stand-in on `port`. */
export const telegramSettings = (port, secret = newSecret()) => ({
  TELEGRAM_BOT_TOKEN: "1000001:local-stand-in",
  TELEGRAM_WEBHOOK_SECRET: secret,
  TELEGRAM_BOT_USERNAME: "edgemind_local_bot",
  TELEGRAM_API_ROOT: `http://127.0.0.1:${port}`,
});

/** The Telegram user id every line typed into the stand-in is sent as, in a private chat of the same id. */
export const LOCAL_USER_ID = 424242;

/** Russian for a ru… locale (LANG=ru_RU.UTF-8), English otherwise. */
export const languageOf = (lang) => (lang?.startsWith("ru") ? "ru" : "en");

// Like Telegram, updates are delivered one at a time, in order, and any answer other than 2xx
// (or no answer) is delivered again after a pause: the Worker claims update ids, so a
// re-delivery of something it already took is acknowledged and dropped. `wrangler dev` answers
// 503 "Your worker restarted mid-request" for a POST that arrives while it reloads the Worker.
const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000, 8000, 15000, 30000];

/**
 * Serves the Bot API stand-in on 127.0.0.1:port and returns `say(line)`, which sends a line as
 * the local user's message to the Worker's webhook (a line starting with "press " presses a
 * button), and `nextReply(ms)`, the text of the next message the bot sends or edits (null when
 * none comes within ms). What the bot says goes to `print`.
 */
export async function startTelegramStandIn({ port, worker, secret, language = "en", print = console.log }) {
  let messageId = 1;
  const awaitingReply = new Set();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const method = req.url?.split("/").at(-1) ?? "";
      const payload = body ? JSON.parse(body) : {};
      if (method === "sendMessage" || method === "editMessageText") {
        const buttons = payload.reply_markup?.inline_keyboard?.flat().map((b) => `[${b.text} → ${b.callback_data}]`).join(" ") ?? "";
        print(`\nbot: ${payload.text}${buttons ? `\n     ${buttons}` : ""}`);
        for (const resolve of awaitingReply) resolve(payload.text);
      } else print(`\n(bot called ${method})`);
      const result = method === "sendMessage" ? { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: payload.chat_id, type: "private" }, text: payload.text } : true;
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ok: true, result }));
    });
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));

  const user = { id: LOCAL_USER_ID, is_bot: false, first_name: "Local", language_code: language };
  let updateId = Date.now();
  const queue = [];
  let delivering = false;

  async function deliver(update) {
    for (let attempt = 0; ; attempt++) {
      const outcome = await fetch(`${worker}/telegram/webhook`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret },
        body: JSON.stringify(update),
      })
        .then(async (response) => ({ ok: response.ok, why: `${response.status} ${(await response.text()).slice(0, 200)}` }))
        .catch((error) => ({ ok: false, why: `unreachable (${error.cause?.code ?? error.message})` }));
      if (outcome.ok) return;
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        print(`webhook answered ${outcome.why}; gave up on update ${update.update_id} after ${attempt + 1} deliveries`);
        return;
      }
      print(`webhook answered ${outcome.why}; delivering update ${update.update_id} again in ${delay} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async function drain() {
    if (delivering) return;
    delivering = true;
    while (queue.length > 0) await deliver(queue.shift());
    delivering = false;
  }

  function say(line) {
    const text = line.trim();
    if (!text) return;
    const date = Math.floor(Date.now() / 1000);
    const chat = { id: user.id, type: "private" };
    const update = text.startsWith("press ")
      ? { update_id: ++updateId, callback_query: { id: String(updateId), from: user, chat_instance: "local", data: text.slice(6), message: { message_id: messageId, date, chat, text: "" } } }
      : {
          update_id: ++updateId,
          message: { message_id: ++messageId, date, chat, from: user, text, ...(text.startsWith("/") && { entities: [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0].length }] }) },
        };
    queue.push(update);
    void drain();
  }
  function nextReply(ms) {
    return new Promise((resolve) => {
      const done = (text) => {
        awaitingReply.delete(done);
        clearTimeout(timer);
        resolve(text);
      };
      const timer = setTimeout(() => done(null), ms);
      awaitingReply.add(done);
    });
  }
  return { server, say, nextReply };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = standInPort("telegram", "TELEGRAM_API_ROOT");
  const worker = (process.env.EDGEMIND_URL ?? `http://127.0.0.1:${localPorts().worker}`).replace(/\/+$/, "");
  // What `npm run dev` would create, in case this runs first, and the bot's settings.
  const wanted = { ADMIN_TOKEN: newSecret(), JWT_SECRET: newSecret(), ...telegramSettings(port) };
  const missing = Object.entries(wanted).filter(([name]) => !(name in readVars()));
  if (missing.length > 0) {
    appendFileSync(devVarsPath, missing.map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
    console.log(`added ${missing.map(([k]) => k).join(", ")} to .dev.vars: restart npm run dev`);
  }
  const { say } = await startTelegramStandIn({ port, worker, secret: readVars().TELEGRAM_WEBHOOK_SECRET, language: languageOf(process.env.LANG) });
  console.log(`Bot API stand-in on http://127.0.0.1:${port}; type a message (a line starting with "press " sends a button's data)`);
  createInterface({ input: process.stdin }).on("line", say);
}

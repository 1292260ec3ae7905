import assert from "node:assert/strict";
import { test } from "node:test";
import { inspectorArgs, localPorts } from "../../scripts/local.mjs";
import { telegramSettings } from "../../scripts/telegram-stand-in.mjs";

test("one PORT places the Worker and the stand-ins; each stand-in's own variable still overrides it", () => {
  assert.deepEqual(localPorts({}), { worker: 8787, telegram: 8788, model: 8789, webhooks: 8790 });
  assert.deepEqual(localPorts({ PORT: "8830" }), { worker: 8830, telegram: 8831, model: 8832, webhooks: 8833 });
  assert.deepEqual(
    localPorts({ PORT: "8830", STAND_IN_PORT: "9001", MODEL_STAND_IN_PORT: "9002", WEBHOOK_RECEIVER_PORT: "9003" }),
    { worker: 8830, telegram: 9001, model: 9002, webhooks: 9003 },
  );
});

test("the bot's settings point the Worker at the Telegram stand-in's own port", () => {
  const { telegram } = localPorts({ PORT: "8830" });
  assert.equal(telegramSettings(telegram, "s".repeat(32)).TELEGRAM_API_ROOT, "http://127.0.0.1:8831");
});

test("INSPECTOR_PORT sets the devtools port wrangler dev opens; unset leaves it to wrangler; a bad one is refused", () => {
  assert.deepEqual(inspectorArgs({ INSPECTOR_PORT: "9333" }), ["--inspector-port", "9333"]);
  assert.deepEqual(inspectorArgs({}), []);
  assert.throws(() => inspectorArgs({ INSPECTOR_PORT: "ninety" }), /INSPECTOR_PORT must be a port number/);
});

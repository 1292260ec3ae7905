import assert from "node:assert/strict";
import { test } from "node:test";
import { freePort } from "../../scripts/local.mjs";
import { describe, startWebhookReceiver } from "../../scripts/webhook-receiver.mjs";

// The local webhook receiver (`npm run webhooks:local`, the demo's) prints each delivery and
// whether it verifies, checked with Standard Webhooks' own example.

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const EXAMPLE = {
  "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
  "webhook-timestamp": "1614265330",
  "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

test("the local receiver prints a delivery whose signature verifies, and one whose body was changed", async () => {
  const port = await freePort();
  const lines: string[] = [];
  const server = await startWebhookReceiver({ port, secrets: () => [SECRET], log: (line) => lines.push(line) });
  try {
    for (const body of ['{"test": 2432232314}', '{"test": 2432232315}']) {
      const res = await fetch(`http://127.0.0.1:${port}/hooks`, { method: "POST", headers: EXAMPLE, body });
      assert.equal(res.status, 200);
    }
    assert.match(lines[0]!, /: signature ok$/);
    assert.match(lines[1]!, /: SIGNATURE DOES NOT VERIFY$/);
  } finally {
    server.close();
  }
});

test("a line says what changed", () => {
  const event = { sequence: 4, type: "memory.updated", agent: "default", data: { memory: { id: "mem_1", key: "tea" }, changed: ["content", "priority"] } };
  assert.equal(describe(event), "#4 memory.updated [default] mem_1 (tea) changed: content, priority");
  assert.equal(describe({ sequence: 9, type: "cold.updated", agent: "default", data: { version: 3, author: { kind: "person" } } }), "#9 cold.updated [default] version 3 by person");
});

// A stand-in webhook receiver for local runs: it listens on 127.0.0.1 and prints every delivery
// it gets: a line each (the event's sequence, type, namespace, what changed) and whether its
// signature verifies (Standard Webhooks) with the signing secret it knows, then, run alone, the
// delivery's headers and body as they came. It listens on PORT+3
// (PORT is the Worker's, default 8787), or on WEBHOOK_RECEIVER_PORT.
// `npm run webhooks:local` adds WEBHOOK_ALLOW_LOOPBACK=1 and a WEBHOOK_ENCRYPTION_KEY to
// .dev.vars if missing (restart `npm run dev` then), and with TOKEN and MIND (the README's shell
// variables) subscribes that mind to itself; WEBHOOK_SECRET names a secret instead, for a webhook
// made by hand. `npm run demo` starts it for the demo's mind. WEBHOOK_RECEIVER_STATUS=503 answers
// every delivery with that status, to watch the retries.
import { createHmac, timingSafeEqual } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { devVarsPath, localPorts, newSecret, onBoundedBody, readVars } from "./local.mjs";

const MAX_BODY = 1024 * 1024;

/** Whether a delivery is signed with `secret` as Standard Webhooks says (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`). */
export function verifies(secret, headers, body) {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  if (!id || !/^\d+$/.test(timestamp ?? "")) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  return (headers["webhook-signature"] ?? "").split(" ").some((signature) => {
    const given = signature.startsWith("v1,") ? Buffer.from(signature.slice(3), "base64") : Buffer.alloc(0);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** One line for a delivery: sequence, type, namespace, the row it is about and what changed. */
export function describe(event) {
  const data = event.data ?? {};
  const row = data.memory ?? data.note ?? data.session;
  const about = row ? ` ${row.id}${row.key ? ` (${row.key})` : ""}` : data.version ? ` version ${data.version} by ${data.author?.kind ?? "?"}` : "";
  const changed = Array.isArray(data.changed) && data.changed.length > 0 ? ` changed: ${data.changed.join(", ")}` : "";
  return `#${event.sequence} ${event.type} [${event.agent ?? "mind"}]${about}${changed}`;
}

/**
 * Serves the receiver on 127.0.0.1:port; `secrets()` are the signing secrets it checks against.
 * `full`: each delivery's headers and body are printed too, under its line.
 */
export function startWebhookReceiver({ port, secrets = () => [], status = 200, full = false, log = console.log }) {
  const server = createServer((req, res) => {
    onBoundedBody(req, MAX_BODY, (body) => {
      let event;
      try {
        event = JSON.parse(body.toString("utf8"));
      } catch {
        log(`[webhook] ${req.method} ${req.url}: not an event (${body.length} bytes)`);
        res.writeHead(400).end();
        return;
      }
      const known = secrets();
      const signature = known.length === 0 ? "not checked (no secret known)" : known.some((s) => verifies(s, req.headers, body)) ? "signature ok" : "SIGNATURE DOES NOT VERIFY";
      log(`[webhook] ${describe(event)}: ${signature}${status === 200 ? "" : `; answered ${status}`}`);
      if (full) {
        for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) log(`  ${name}: ${req.headers[name]}`);
        log(`  ${body.toString("utf8")}`);
      }
      res.writeHead(status, { "Content-Type": "text/plain" }).end(status === 200 ? "ok" : "not now");
    });
  });
  return new Promise((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve(server)));
}

/**
 * Subscribes the mind to the receiver at `url` with a person's token: the webhook and its signing
 * secret. A webhook of the mind at that URL already (an earlier start's) is kept, with a new secret.
 */
export async function subscribe(base, token, mindId, url) {
  const call = async (method, path, body) => {
    const res = await fetch(`${base}/minds/${mindId}/webhooks${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${method} /minds/${mindId}/webhooks${path} answered ${res.status}: ${answer.error?.message ?? JSON.stringify(answer)}`);
    return answer;
  };
  const existing = (await call("GET", "")).webhooks.find((webhook) => webhook.url === url);
  return existing ? call("POST", `/${existing.id}/rotate`, { grace_hours: 0 }) : call("POST", "", { url });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = localPorts().webhooks;
  const wanted = { WEBHOOK_ALLOW_LOOPBACK: "1", WEBHOOK_ENCRYPTION_KEY: newSecret() + newSecret() };
  const missing = Object.entries(wanted).filter(([name]) => !(name in readVars()));
  if (missing.length > 0) {
    appendFileSync(devVarsPath, missing.map(([k, v]) => `${k}=${v}\n`).join(""), { mode: 0o600 });
    console.log(`added ${missing.map(([k]) => k).join(", ")} to .dev.vars: restart npm run dev`);
  }
  const secrets = process.env.WEBHOOK_SECRET ? [process.env.WEBHOOK_SECRET] : [];
  const status = Number(process.env.WEBHOOK_RECEIVER_STATUS ?? 200);
  await startWebhookReceiver({ port, secrets: () => secrets, status, full: true });
  const url = `http://127.0.0.1:${port}/hooks`;
  console.log(`webhook receiver on ${url}`);
  const { TOKEN, MIND } = process.env;
  if (TOKEN && MIND && secrets.length === 0) {
    const base = (process.env.BASE ?? `http://127.0.0.1:${localPorts().worker}`).replace(/\/+$/, "");
    try {
      const webhook = await subscribe(base, TOKEN, MIND, url);
      secrets.push(webhook.secret);
      console.log(`subscribed the mind ${MIND} (webhook ${webhook.id}); its events are printed below`);
    } catch (error) {
      console.error(`could not subscribe the mind: ${error.message}`);
    }
  } else if (secrets.length === 0) {
    console.log("subscribe a mind to it (POST /minds/:id/webhooks with this URL), or start it with TOKEN and MIND set to do so");
  }
}

// Imports a file into an empty mind through the REST API and follows the import to its end:
//   npm run import -- --from mem0 export.json --mind mind_…
//   npm run import -- --from letta agent.af --mind mind_…
//   npm run import -- --from archive mind.jsonl --mind mind_…
// The Worker is EDGEMIND_URL, else the local `npm run dev` (http://127.0.0.1:$PORT, PORT 8787).
// The mind's owner is TOKEN (a person's token, as the README's examples export it), or, given
// --account NAME, the token the admin token (ADMIN_TOKEN, else .dev.vars') makes for that account.
// --mind defaults to MIND. The file is sent as a stream; its upload, then the import's progress
// (rows written of the rows checked) are printed until it is done or has failed.
import { createReadStream, existsSync, statSync } from "node:fs";
import { parseArgs } from "node:util";
import { localPorts, readVars } from "./local.mjs";

const MEDIA_TYPES = { archive: "application/x-ndjson", mem0: "application/vnd.mem0+json", letta: "application/vnd.letta.agent-file+json" };
const USAGE = "usage: npm run import -- --from mem0|letta|archive FILE --mind ID [--account NAME]";
/** How often an import written in the background is asked where it stands. */
const POLL_MS = 1000;

function fail(message) {
  console.error(message);
  process.exit(1);
}

function readOptions() {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { from: { type: "string" }, mind: { type: "string" }, account: { type: "string" } } });
  } catch (error) {
    fail(`${error.message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const format = values.from ?? "archive";
  if (!(format in MEDIA_TYPES)) fail(`--from ${format}: expected mem0, letta or archive\n${USAGE}`);
  if (positionals.length !== 1) fail(`name one file to import\n${USAGE}`);
  const [file] = positionals;
  if (!existsSync(file) || !statSync(file).isFile()) fail(`${file}: no such file`);
  const mind = values.mind ?? process.env.MIND;
  if (!mind) fail(`name the mind to import into: --mind ID (or MIND)\n${USAGE}`);
  return { format, file, mind, account: values.account };
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A person's token: TOKEN, or the one the admin token makes for --account. */
async function ownerToken(base, account) {
  if (!account) return process.env.TOKEN || fail("set TOKEN to the mind owner's token (POST /auth/token), or name the owner's account with --account");
  const admin = process.env.ADMIN_TOKEN ?? readVars().ADMIN_TOKEN;
  if (!admin) fail("--account needs the admin token: set ADMIN_TOKEN");
  const res = await fetch(`${base}/auth/token`, { method: "POST", headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" }, body: JSON.stringify({ account }) });
  if (!res.ok) fail(`POST /auth/token answered ${res.status}: ${await res.text()}`);
  return (await res.json()).token;
}

/** The file as a stream, printing how much of it has gone. */
async function* uploadOf(file, size, show) {
  let sent = 0;
  for await (const chunk of createReadStream(file)) {
    sent += chunk.length;
    show(`sent ${mb(sent)} of ${mb(size)}`);
    yield chunk;
  }
}

/** One line that rewrites itself in a terminal, a line per change otherwise. */
function statusLine() {
  let last = "";
  return {
    show(text) {
      if (text === last) return;
      last = text;
      if (process.stdout.isTTY) process.stdout.write(`\r\x1b[2K${text}`);
      else console.log(text);
    },
    end() {
      if (process.stdout.isTTY && last) process.stdout.write("\n");
    },
  };
}

const progressOf = (i) => (i.rows_total > 0 ? `${i.state}: ${i.rows_written} of ${i.rows_total} rows (${Math.floor((100 * i.rows_written) / i.rows_total)}%)` : `${i.state}: checking the file`);
const receiptOf = (counts) => Object.entries(counts).filter(([, n]) => n > 0).map(([table, n]) => `  ${table.padEnd(15)} ${n}`).join("\n") || "  (nothing: the file held no rows)";

async function follow(base, token, mind, answer, line) {
  let current = answer.import;
  while (!["done", "failed"].includes(current.state)) {
    line.show(progressOf(current));
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const res = await fetch(`${base}/minds/${mind}/import/${current.id}`, { headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok) fail(`\nGET /minds/${mind}/import/${current.id} answered ${res.status}: ${await res.text()}`);
    current = await res.json();
  }
  return current;
}

async function main() {
  const { format, file, mind, account } = readOptions();
  const base = (process.env.EDGEMIND_URL ?? `http://127.0.0.1:${localPorts().worker}`).replace(/\/+$/, "");
  const token = await ownerToken(base, account);
  const size = statSync(file).size;
  console.log(`importing ${file} (${format}, ${mb(size)}) into ${mind} at ${base}`);
  const line = statusLine();
  let res;
  try {
    res = await fetch(`${base}/minds/${encodeURIComponent(mind)}/import`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": MEDIA_TYPES[format], "Content-Length": String(size) },
      body: uploadOf(file, size, line.show),
      duplex: "half",
    });
  } catch (error) {
    line.end();
    fail(`could not reach ${base}: ${error.cause?.message ?? error.message}`);
  }
  const answer = await res.json().catch(() => null);
  if (!res.ok || !answer?.import) {
    line.end();
    fail(`refused (${res.status}): ${answer?.error?.message ?? JSON.stringify(answer)}`);
  }
  const ended = await follow(base, token, mind, answer, line);
  line.end();
  if (ended.state === "failed") fail(`the import failed and was undone, the mind is as it was: ${ended.error?.message ?? "no reason given"}`);
  console.log(`done: ${ended.rows_written} rows written\n${receiptOf(ended.counts)}`);
}

await main();

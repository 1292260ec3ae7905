import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

// `npm run import` sends a file to POST /minds/:id/import with the media type of its format and
// follows the import to its end, printing its progress; a refusal or a failed import exits 1.

const script = path.resolve(import.meta.dirname, "../../scripts/import.mjs");

interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** An import API that answers POST with `posted` and each GET with the next of `states`, recording what it received. */
async function fakeWorker(posted: { status: number; body: unknown }, states: unknown[]) {
  const received: Received[] = [];
  const read = async (req: IncomingMessage) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    return body;
  };
  const server = createServer(async (req, res) => {
    received.push({ method: req.method!, url: req.url!, contentType: req.headers["content-type"], authorization: req.headers.authorization, body: await read(req) });
    const answer = req.method === "POST" ? posted : { status: 200, body: states.shift() };
    res.writeHead(answer.status, { "Content-Type": "application/json" }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => server.close() };
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? "", ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const importOf = (state: string, written: number, total: number, counts: Record<string, number> = {}) => ({
  id: "imp_1", mind_id: "mind_1", state, rows_written: written, rows_total: total, counts, error: null,
});

test("sends the file with its format's media type and follows the import to its end, with progress", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "import-cli-")), "agent.af");
  writeFileSync(file, '{"agents": []}');
  const worker = await fakeWorker({ status: 202, body: { import: importOf("queued", 0, 0) } }, [
    importOf("running", 40, 100),
    importOf("done", 100, 100, { memories: 0, cold_memory: 1, messages: 99 }),
  ]);
  try {
    const { code, stdout } = await run(["--from", "letta", file, "--mind", "mind_1"], { EDGEMIND_URL: worker.url, TOKEN: "jwt" });
    assert.equal(code, 0);
    assert.deepEqual(worker.received[0], { method: "POST", url: "/minds/mind_1/import", contentType: "application/vnd.letta.agent-file+json", authorization: "Bearer jwt", body: '{"agents": []}' });
    assert.deepEqual(worker.received.slice(1).map((r) => `${r.method} ${r.url}`), ["GET /minds/mind_1/import/imp_1", "GET /minds/mind_1/import/imp_1"]);
    assert.match(stdout, /sent 0\.0 MB of 0\.0 MB/);
    assert.match(stdout, /queued: checking the file/);
    assert.match(stdout, /running: 40 of 100 rows \(40%\)/);
    assert.match(stdout, /done: 100 rows written\n {2}cold_memory {5}1\n {2}messages {8}99\n/);
  } finally {
    worker.close();
  }
});

test("a refusal and a failed import exit 1 with the reason", async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "import-cli-")), "export.json");
  writeFileSync(file, "[]");
  const refusing = await fakeWorker({ status: 400, body: { error: { code: "invalid_request", message: "mem0 export: results[2] (line 9): memory: required" } } }, []);
  const failing = await fakeWorker({ status: 202, body: { import: importOf("queued", 0, 0) } }, [{ ...importOf("failed", 0, 10), error: { code: "quota_exceeded", message: "max_memories" } }]);
  try {
    const refused = await run(["--from", "mem0", file, "--mind", "mind_1"], { EDGEMIND_URL: refusing.url, TOKEN: "jwt" });
    assert.equal(refused.code, 1);
    assert.equal(refusing.received[0]!.contentType, "application/vnd.mem0+json");
    assert.match(refused.stderr, /refused \(400\): mem0 export: results\[2\] \(line 9\): memory: required/);
    const failed = await run(["--from", "mem0", file], { EDGEMIND_URL: failing.url, TOKEN: "jwt", MIND: "mind_1" });
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /the import failed and was undone, the mind is as it was: max_memories/);
    const unknown = await run(["--from", "zep", file, "--mind", "mind_1"], { EDGEMIND_URL: failing.url, TOKEN: "jwt" });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /--from zep: expected mem0, letta or archive/);
  } finally {
    refusing.close();
    failing.close();
  }
});

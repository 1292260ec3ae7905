// The JavaScript heap a Worker's isolate holds after a full garbage collection, read through the
// devtools port `wrangler dev --inspector-port` opens: `node --experimental-websocket
// heap-usage.mjs <port>` prints `{ "usedSize": …, "totalSize": … }` (bytes). workerd does not
// answer HeapProfiler.collectGarbage; a heap snapshot collects first, so one is taken (and its
// chunks dropped) before the heap is read. A child of its own so the bench runs on Node 20, whose
// WebSocket needs the flag.
const port = Number(process.argv[2]);
const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
const target = targets.find((t) => t.webSocketDebuggerUrl);
if (!target) throw new Error(`no devtools target on port ${port}`);
// wrangler's devtools proxy asks for an Origin it knows; localhost is one.
const socket = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "http://localhost" } });
await new Promise((resolve, reject) => {
  socket.onopen = resolve;
  socket.onerror = reject;
});
let next = 0;
const pending = new Map();
socket.onmessage = (event) => {
  const text = String(event.data);
  if (text.includes('"HeapProfiler.addHeapSnapshotChunk"')) return;
  const message = JSON.parse(text);
  if (message.id !== undefined) pending.get(message.id)?.(message);
};
const call = (method, params = {}) =>
  new Promise((resolve) => {
    const id = ++next;
    pending.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params }));
  });
await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
const usage = await call("Runtime.getHeapUsage");
console.log(JSON.stringify(usage.result ?? usage.error));
socket.close();
process.exit(0);

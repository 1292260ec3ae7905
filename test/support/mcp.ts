import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The official SDK client, talking to the Worker over streamable HTTP with a Bearer token. */
export async function connectMcp(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("https://edgemind.test/mcp"), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
  const client = new Client({ name: "edgemind-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

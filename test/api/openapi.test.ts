import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import readme from "../../README.md?raw";
import { ADMIN_TOKEN, newHuman } from "../helpers";

interface Operation {
  parameters?: ({ $ref: string } | { name: string; in: string; required?: boolean })[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: unknown[];
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { parameters: Record<string, { name: string; in: string }> } };

const METHODS = ["get", "put", "post", "delete", "patch"];
/** The documentation itself and the browser UI: in the README's table, not API operations. */
const NOT_IN_DOCUMENT = new Set(["GET /", "GET /openapi.json", "GET /docs"]);

async function openapi(): Promise<Doc> {
  const res = await SELF.fetch("https://edgemind.test/openapi.json");
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

function operations(doc: Doc): Set<string> {
  const found = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) found.add(`${method.toUpperCase()} ${path}`);
  }
  return found;
}

/** Every `METHOD[/METHOD…] /path` in the README's route table, with `:param` as `{param}`. */
function readmeRoutes(): Set<string> {
  const section = readme.slice(readme.indexOf("### Routes"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| route")));
  const found = new Set<string>();
  for (const row of table.split("\n").slice(2)) {
    const cell = row.split(/(?<!\\)\|/)[1] ?? "";
    for (const [, methods, path] of cell.matchAll(/`([A-Z/]+) (\/[^`]*)`/g)) {
      for (const method of methods!.split("/")) found.add(`${method} ${path!.replace(/\?.*$/, "").replace(/:(\w+)/g, "{$1}")}`);
    }
  }
  return found;
}

describe("the OpenAPI document", () => {
  it("lists exactly the routes of the README's table", async () => {
    const documented = operations(await openapi());
    const listed = readmeRoutes();
    expect(listed.size).toBeGreaterThan(40);
    const missingFromReadme = [...documented].filter((r) => !listed.has(r));
    const missingFromDocument = [...listed].filter((r) => !documented.has(r) && !NOT_IN_DOCUMENT.has(r));
    expect({ missingFromReadme, missingFromDocument }).toEqual({ missingFromReadme: [], missingFromDocument: [] });
  });

  it("documents health, MCP and the Telegram routes", async () => {
    const documented = operations(await openapi());
    for (const route of ["GET /health", "POST /mcp", "POST /telegram/webhook", "POST /telegram/setup"]) expect(documented).toContain(route);
  });

  it("declares X-Mind-Id exactly on the routes that need it with a human's token", async () => {
    const doc = await openapi();
    expect(doc.components.parameters.MindId).toMatchObject({ name: "X-Mind-Id", in: "header" });
    expect(doc.components.parameters.Bookmark).toMatchObject({ name: "X-Edgemind-Bookmark", in: "header" });
    const { token } = await newHuman();
    let declared = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation?.security) continue;
        const hasHeader = (operation.parameters ?? []).some((p) => "$ref" in p && p.$ref === "#/components/parameters/MindId");
        const url = `https://edgemind.test${path.replace(/\{[^}]+\}/g, "x1")}`;
        const res = await SELF.fetch(url, {
          method: method.toUpperCase(),
          headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          body: method === "get" || method === "delete" ? undefined : "{}",
        });
        const body = await res.text();
        const asksForMind = res.status === 400 && body.includes("X-Mind-Id");
        expect(asksForMind, `${method.toUpperCase()} ${path}: declared ${hasHeader}, answered ${res.status} ${body.slice(0, 120)}`).toBe(hasHeader);
        if (hasHeader) declared++;
      }
    }
    expect(declared).toBeGreaterThan(25);
  });

  it("marks /cold/diff's from as required, as the route enforces", async () => {
    const doc = await openapi();
    const from = doc.paths["/cold/diff"]!.get!.parameters!.find((p) => "name" in p && p.name === "from");
    expect(from).toMatchObject({ in: "query", required: true });
  });

  it("describes the export's body as JSON lines", async () => {
    const doc = await openapi();
    expect(Object.keys(doc.paths["/minds/{id}/export"]!.get!.responses["200"]!.content ?? {})).toEqual(["application/x-ndjson"]);
  });
});

it("the admin token does not open the JSON routes: 403, it is the operator's", async () => {
  expect((await SELF.fetch("https://edgemind.test/memory", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(403);
});

import { exports } from "cloudflare:workers";

/** The parts of a JSON Schema (as the OpenAPI document and MCP tools write them) that tests read. */
export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  minLength?: number;
  minimum?: number;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

export interface Operation {
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

export interface RouteOfDocument {
  method: string;
  /** The path as the document writes it, with `{param}` placeholders. */
  path: string;
  op: Operation;
}

export interface ApiDocument {
  routes: RouteOfDocument[];
  components: Record<string, JsonSchema>;
}

/** The Worker's own OpenAPI document, as its routes. */
export async function readApiDocument(): Promise<ApiDocument> {
  const res = await exports.default.fetch(new Request("https://edgemind.test/openapi.json"));
  const doc = (await res.json()) as { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, JsonSchema> } };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  return { routes, components: doc.components?.schemas ?? {} };
}

/** A valid-looking value for a schema: every property filled, the first enum value, a future date. */
export function sample(schema: JsonSchema | undefined, components: Record<string, JsonSchema>): unknown {
  if (!schema) return undefined;
  if (schema.$ref) return sample(components[schema.$ref.split("/").at(-1)!], components);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (options) return sample(options.find((o) => o.type !== "null"), components);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, components)]));
    case "array":
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items, components));
    case "string":
      return schema.format === "date-time" ? new Date(Date.now() + 86_400_000).toISOString() : "x".repeat(Math.max(3, schema.minLength ?? 1));
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 1);
    case "boolean":
      return true;
    default:
      return undefined;
  }
}

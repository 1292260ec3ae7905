// The Python text of an OpenAPI document's schemas: one TypedDict per object schema (Python 3.9
// has no NotRequired, so an object with optional keys is a class of its required keys and a
// subclass with total=False), Literal for enums, Optional for a null type, Any for `{}`.

const KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
const isIdentifier = (name) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
const pascal = (name) => name.replace(/(^|[_\-\s]+)([a-z0-9])/g, (_, _sep, c) => c.toUpperCase());
const singular = (name) => (name.endsWith("ies") ? `${name.slice(0, -3)}y` : name.endsWith("s") ? name.slice(0, -1) : `${name}Item`);
const refName = (ref) => ref.split("/").at(-1);
const quote = (text) => JSON.stringify(text);
const docstring = (text, indent) => `${indent}${JSON.stringify(text).replace(/^"|"$/g, '"""')}`;

const SCALARS = { string: "str", integer: "int", number: "float", boolean: "bool", null: "None" };

/**
 * Turns schemas into Python: `define(name, schema)` registers a named TypedDict and answers its
 * name, after the component schemas it refers to (`components`, named as the document names them,
 * their nested objects as `componentNames` says), so a class never names one defined below it;
 * nested object schemas are named after their parent and property (ContextPart, MindSettings)
 * unless `names` gives a name for that path ("results[]" for the items of `results`,
 * "history[].changes" below them).
 */
export function createTypeWriter(components, componentNames = {}, enums = {}) {
  const classes = [];
  const named = new Set();
  // Named Literal aliases (Category, Priority, …), used wherever an enum of the same values appears.
  const enumByValues = new Map(Object.entries(enums).map(([name, values]) => [JSON.stringify(values), name]));
  const aliases = Object.entries(enums).map(([name, values]) => `${name} = Literal[${values.map(quote).join(", ")}]`);

  /** A component's name, once its TypedDict is written. */
  function component(ref) {
    const name = refName(ref);
    if (!components[name]) throw new Error(`no component schema ${name}`);
    return define(name, components[name], componentNames[name]);
  }

  /** The Python type of a schema found at `path` (a field, `field[]` its items) of the TypedDict `parent`. */
  function typeOf(schema, parent, path, names) {
    if (!schema || Object.keys(schema).filter((k) => k !== "description").length === 0) return "Any";
    if (schema.$ref) return component(schema.$ref);
    if (schema.allOf || (schema.type === "object" && schema.properties)) {
      const auto = path.endsWith("[]") ? `${parent}${pascal(singular(path.slice(0, -2)))}` : `${parent}${pascal(path)}`;
      return define(names[path] ?? auto, schema, within(names, path));
    }
    for (const union of ["anyOf", "oneOf"]) {
      if (schema[union]) return unionOf(schema[union].map((s) => typeOf(s, parent, path, names)));
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return unionOf(types.map((type) => scalarOrContainer(type, schema, parent, path, names)));
  }

  function scalarOrContainer(type, schema, parent, path, names) {
    if (type === "string" && schema.enum) return enumByValues.get(JSON.stringify(schema.enum)) ?? `Literal[${schema.enum.map(quote).join(", ")}]`;
    if (type === "array") return schema.items ? `List[${typeOf(schema.items, parent, `${path}[]`, names)}]` : "List[Any]";
    if (type === "object") {
      const values = typeof schema.additionalProperties === "object" ? typeOf(schema.additionalProperties, parent, `${path}{}`, names) : "Any";
      return `Dict[str, ${values}]`;
    }
    const scalar = SCALARS[type];
    if (!scalar) throw new Error(`no Python type for the JSON Schema type ${JSON.stringify(type)} at ${parent}.${path}`);
    return scalar;
  }

  /** Registers the TypedDict `name` for an object schema (or allOf of a $ref and an object). */
  function define(name, schema, names = {}) {
    if (named.has(name)) return name;
    named.add(name);
    const parts = schema.allOf ?? [schema];
    const bases = parts.filter((p) => p.$ref).map((p) => component(p.$ref));
    const own = parts.filter((p) => !p.$ref);
    const fields = [];
    for (const part of own) {
      for (const [field, fieldSchema] of Object.entries(part.properties ?? {})) {
        const type = typeOf(fieldSchema, name, field, names);
        fields.push({ field, type, required: (part.required ?? []).includes(field), description: fieldSchema.description });
      }
    }
    const description = schema.description ?? own.find((p) => p.description)?.description;
    classes.push(classText(name, bases, fields, description));
    return name;
  }

  /** Registers a named TypedDict of a request body: `{}` fields (refused keys) are left out. */
  function body(name, schema, names = {}) {
    const properties = Object.fromEntries(Object.entries(schema.properties).filter(([, s]) => Object.keys(s).length > 0));
    return define(name, { ...schema, properties }, names);
  }

  return { define, body, text: () => [aliases.join("\n"), ...classes].join("\n\n\n") };
}

/** The names given for paths under `path`, relative to it. */
function within(names, path) {
  const prefix = `${path}.`;
  return Object.fromEntries(Object.entries(names).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

function unionOf(types) {
  const unique = [...new Set(types)];
  const withoutNone = unique.filter((t) => t !== "None");
  if (withoutNone.length === unique.length) return unique.length === 1 ? unique[0] : `Union[${unique.join(", ")}]`;
  if (withoutNone.length === 0) return "None";
  const inner = withoutNone.length === 1 ? withoutNone[0] : `Union[${withoutNone.join(", ")}]`;
  return `Optional[${inner}]`;
}

/** A TypedDict's text: its required keys, then the optional ones in a total=False subclass. */
function classText(name, bases, fields, description) {
  const required = fields.filter((f) => f.required);
  const optional = fields.filter((f) => !f.required);
  const base = bases.length > 0 ? bases.join(", ") : "TypedDict";
  if (!fields.every((f) => isIdentifier(f.field))) return functionalText(name, base, required, optional, description);
  if (optional.length === 0) return block(name, base, required, description);
  if (required.length === 0) return block(name, base === "TypedDict" ? "TypedDict, total=False" : `${base}, total=False`, optional, description);
  return `${block(`_${name}Required`, base, required)}\n\n\n${block(name, `_${name}Required, total=False`, optional, description)}`;
}

function block(name, bases, fields, description) {
  const lines = [`class ${name}(${bases}):`];
  if (description) lines.push(docstring(description, "    "));
  for (const { field, type, description: about } of fields) {
    if (about) lines.push(`    #: ${about.replace(/\s*\n\s*/g, " ")}`);
    lines.push(`    ${field}: ${type}`);
  }
  if (lines.length === 1) lines.push("    pass");
  return lines.join("\n");
}

/** Keys that are not Python names (`from`) need the functional TypedDict syntax. */
function functionalText(name, base, required, optional, description) {
  const dict = (fields) => `{${fields.map((f) => `${quote(f.field)}: ${f.type}`).join(", ")}}`;
  const comment = description ? `#: ${description}\n` : "";
  if (base === "TypedDict" && optional.length === 0) return `${comment}${name} = TypedDict(${quote(name)}, ${dict(required)})`;
  if (base === "TypedDict" && required.length === 0) return `${comment}${name} = TypedDict(${quote(name)}, ${dict(optional)}, total=False)`;
  const lines = [];
  const bases = base === "TypedDict" ? [] : [base];
  for (const [suffix, fields, total] of [["Required", required, ""], ["Optional", optional, ", total=False"]]) {
    if (fields.length === 0) continue;
    lines.push(`_${name}${suffix} = TypedDict(${quote(`_${name}${suffix}`)}, ${dict(fields)}${total})`);
    bases.push(`_${name}${suffix}`);
  }
  lines.push("", "", `class ${name}(${bases.join(", ")}):`, docstring(description ?? name, "    "));
  return lines.join("\n");
}

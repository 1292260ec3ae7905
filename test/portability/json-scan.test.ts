import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors";
import { repeatedKeyIn } from "../../src/portability/import/archive-json";
import { type JsonKind, type PickAnswer, pickedValues } from "../../src/portability/import/json-scan";
import { formatPath, type JsonPath } from "../../src/portability/import/json-tokens";

// A peer's file is walked as bytes, never parsed whole: the walk must accept exactly what
// JSON.parse accepts, hand over the values it is asked for, and name where a file goes wrong.

const bytes = (text: string) => new TextEncoder().encode(text);
const all = (text: string, pick: (path: JsonPath, kind: JsonKind) => PickAnswer) => [...pickedValues(bytes(text), pick, "test file")];
const whole = (text: string) => all(text, () => "value")[0]!.value;
const refusal = (text: string, pick: (path: JsonPath, kind: JsonKind) => PickAnswer = () => "walk") => {
  try {
    all(text, pick);
  } catch (err) {
    if (err instanceof AppError) return err.message;
    throw err;
  }
  return null;
};
const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
/** JSON text with every kind of token, spaced as people and programs write it. */
const jsonText = fc.tuple(fc.jsonValue({ maxDepth: 5 }), fc.constantFrom(undefined, 1, 2, "\t", "\r\n ")).map(([value, indent]) => JSON.stringify(value, null, indent as never) ?? "null");

describe("walking a JSON file", () => {
  it("hands over a picked value exactly as JSON.parse reads it", () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        expect(whole(text)).toEqual(JSON.parse(text));
      }),
    );
  });

  it("walks into containers and hands over each member with its path, in document order", () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), { maxLength: 6 }), (list) => {
        const text = JSON.stringify({ skipped: [1, { a: "}" }], results: list }, null, 1);
        const picked = all(text, (path) => (path.length < 2 ? (path[0] === "skipped" ? "skip" : "walk") : path.length === 2 ? "value" : "skip"));
        expect(picked.map((p) => p.path)).toEqual(list.map((_, i) => ["results", i]));
        expect(picked.map((p) => p.value)).toEqual(JSON.parse(text).results);
      }),
    );
  });

  it("accepts a text exactly when JSON.parse does (a key given twice in one object aside)", () => {
    const spoiled = fc.tuple(jsonText, fc.nat(), fc.constantFrom("", "{", "}", "[", "]", ",", ":", '"', "\\", "1", "-", ".", "e", "t", "n", " ", "\n", "\u0001"), fc.boolean())
      .map(([text, at, char, replace]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + char + text.slice(replace ? i + 1 : i);
      });
    fc.assert(
      fc.property(spoiled, (text) => {
        fc.pre(!parses(text) || repeatedKeyIn(text) === null);
        expect(refusal(text) === null).toBe(parses(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("names the line, the column and the path where a file goes wrong", () => {
    const cases: [string, string][] = [
      ['{"results": [\n  {"memory": "a"},\n  {"memory": "b"} x\n]}', "test file: line 3, column 19 (at results): expected ',' or ']'"],
      ['{"a": [1, 2', "test file: line 1, column 12 (at a): the file ends before its JSON does"],
      ['{"a": "one\ntwo"}', "test file: line 1, column 11 (at a): a control character inside a string (it must be escaped)"],
      ['{"a": "\\x"}', "test file: line 1, column 8 (at a): an unknown escape in a string"],
      ['{"a": "\\u12G4"}', "test file: line 1, column 8 (at a): a \\u escape needs four hexadecimal digits"],
      ['{"a": 01}', "test file: line 1, column 8 (at a): unexpected '1'"],
      ['{"a": tru}', "test file: line 1, column 7 (at a): unexpected 't'"],
      ['{"a": 1} {"b": 2}', "test file: line 1, column 10: more text after the JSON value (one JSON document was expected)"],
      ['{"a": 1, "a": 2}', 'test file: line 1, column 13: the key "a" is given twice in one object'],
      ["", "test file: line 1, column 1: the file is empty"],
      ["\ufeff  \n", "test file: line 2, column 1: the file ends before its JSON does"],
    ];
    for (const [text, message] of cases) expect(refusal(text), text).toBe(message);
  });

  it("refuses nesting past 64 levels, however deep, without running out of stack", () => {
    expect(refusal(`${"[".repeat(65)}${"]".repeat(65)}`)).toMatch(/nested deeper than 64 levels$/);
    expect(refusal(`{"a": ${"[".repeat(200_000)}`, (path) => (path.length === 0 ? "walk" : "value"))).toBe("test file: line 1, column 71 (at a): nested deeper than 64 levels");
    expect(whole(`${"[".repeat(64)}${"]".repeat(64)}`)).toBeDefined();
  });

  it("refuses a key given twice or a lone surrogate inside a picked value, naming its path", () => {
    expect(refusal('{"results": [{"memory": "a", "memory": "b"}]}', (p) => (p.length === 2 ? "value" : "walk"))).toBe('test file: results[0]: the key "memory" is given twice in one object');
    expect(refusal('{"results": [{"tags": ["ok", "\\ud800"]}]}', (p) => (p.length === 2 ? "value" : "walk"))).toBe(
      "test file: results[0].tags[1] holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which is not text",
    );
  });

  it("lets its reader refuse a value by what it is, and skips a BOM", () => {
    expect(refusal('\ufeff{"results": {}}', (p, kind) => (p.length === 1 && kind !== "array" ? { refuse: "results must be a list" } : "walk"))).toBe(
      "test file: line 1, column 13 (at results): results must be a list",
    );
    expect(whole('\ufeff{"a": 1}')).toEqual({ a: 1 });
  });

  it("writes a path as a reader would", () => {
    expect(formatPath(["agents", 0, "messages", 12, "role"])).toBe("agents[0].messages[12].role");
    expect(formatPath([3, "memory"])).toBe("[3].memory");
    expect(formatPath(["odd key", 1])).toBe('["odd key"][1]');
  });
});

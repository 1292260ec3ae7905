import { describe, expect, it } from "vitest";
import { call, newKey, newTenant } from "../helpers";
import { browser } from "./ui-helpers";

/** A mind whose `coder` agent wrote cold memory three times and a note; `default` holds one note. */
async function mindWithAgents() {
  const t = await newTenant();
  const auth = { token: t.token, mind: t.mind.id };
  const coder = await newKey(t.token, t.mind.id, "coder");
  const asCoder = { token: coder.key };
  for (let v = 0; v < 3; v++) {
    const res = await call("PUT", "/cold", { ...asCoder, body: { text: `## Work context\n- step ${v + 1}`, version: v } });
    expect(res.status).toBe(200);
  }
  await call("POST", "/notes", { ...asCoder, body: { text: "Runs the tests before each push" } });
  await call("POST", "/notes", { ...auth, body: { text: "Prefers green tea" } });
  return { ...t, auth, asCoder };
}

describe("every namespace of a mind is visible", () => {
  it("GET /cold names every namespace to a human, and only its own to a scoped key", async () => {
    const { auth, asCoder } = await mindWithAgents();
    const human = await call("GET", "/cold", auth);
    expect(human.json).toMatchObject({ agent: "default", version: 0 });
    expect(human.json.namespaces).toEqual([
      { agent: "default", memories: 0, notes: 1, cold_version: 0 },
      { agent: "coder", memories: 0, notes: 1, cold_version: 3 },
    ]);
    const key = await call("GET", "/cold", asCoder);
    expect(key.json).toMatchObject({ agent: "coder", version: 3 });
    expect(key.json.namespaces.map((ns: { agent: string }) => ns.agent)).toEqual(["coder"]);
  });

  it("the cold memory page switches between namespaces", async () => {
    const { token } = await mindWithAgents();
    const b = browser({ "Accept-Language": "en" });
    await b.post("/ui/login", { jwt: token });
    const page = await b.get("/ui/cold");
    expect(page.text).toMatch(/<a href="\/ui\/cold\?agent=coder"[^>]*data-agent="coder">coder <span class="meta">v3<\/span>/);
    const coder = await b.get("/ui/cold?agent=coder");
    expect(coder.text).toContain("- step 3");
    expect(coder.text).toMatch(/aria-current="page" data-agent="coder"/);
  });

  it("the notes page shows every namespace's notes and filters by one", async () => {
    const { token } = await mindWithAgents();
    const b = browser({ "Accept-Language": "en" });
    await b.post("/ui/login", { jwt: token });
    const all = await b.get("/ui/notes");
    expect(all.text).toContain("Runs the tests before each push");
    expect(all.text).toContain("Prefers green tea");
    const coder = await b.get("/ui/notes?agent=coder");
    expect(coder.text).toContain("Runs the tests before each push");
    expect(coder.text).not.toContain("Prefers green tea");
  });
});

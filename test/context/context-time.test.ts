import { describe, expect, it } from "vitest";
import { call, store } from "../helpers";
import { newAuth, openSession } from "../sessions/session-helpers";

// The assembled context carries each memory's day, its memories of one heading newest day first;
// a question about time (when, how long ago, which came first) is given the statements a later
// one replaced as well, marked with the day they were replaced.

const memoryBlock = (system: string) => /<memory>\n([\s\S]*)\n<\/memory>/.exec(system)![1]!;

async function coffeeMind() {
  const auth = await newAuth();
  const s = await openSession(auth);
  await store(auth, { category: "preference", key: "coffee_order", content: "Orders a flat white", tags: ["coffee"], observed_at: "2023-05-21T10:00:00Z" });
  await store(auth, { category: "preference", key: "coffee_order", content: "Orders an oat latte", tags: ["coffee"], observed_at: "2023-06-03T09:30:00Z" });
  await store(auth, { category: "preference", key: "coffee_cup", content: "Brings a green cup for the coffee", tags: ["coffee"], observed_at: "2023-04-02T08:00:00Z" });
  const contextFor = async (q: string, time = "") => {
    const res = await call("GET", `/sessions/${s.id}/context?q=${encodeURIComponent(q)}${time}`, auth);
    expect(res.status).toBe(200);
    return res.json as { system: string };
  };
  return { contextFor };
}

describe("dates in the assembled context", () => {
  it("says each memory's day over it, newest first under its heading, and shows only what holds now", async () => {
    const { contextFor } = await coffeeMind();
    const context = await contextFor("what coffee do I order?");
    const block = memoryBlock(context.system);
    expect(block).toContain("### coffee\n#### 3 Jun 2023\n- coffee_order: Orders an oat latte\n#### 2 Apr 2023\n- Brings a green cup for the coffee");
    expect(block).not.toContain("flat white");
    expect(context.system).not.toContain("[replaced");
  });

  it("gives a question about time the replaced statements too, marked with the day they were replaced", async () => {
    const { contextFor } = await coffeeMind();
    const context = await contextFor("When did I switch my coffee order?");
    const block = memoryBlock(context.system);
    expect(block).toContain("#### 3 Jun 2023\n- coffee_order: Orders an oat latte\n#### 21 May 2023\n- [replaced 3 Jun 2023] coffee_order: Orders a flat white");
    expect(context.system).toContain("[replaced <day>] items held until a later item replaced them on that day.");
  });

  it("as_of gives what held then, recall as well as search; include=superseded every statement, marked", async () => {
    const { contextFor } = await coffeeMind();
    const then = memoryBlock((await contextFor("what coffee do I order?", "&as_of=2023-05-30")).system);
    expect(then).toContain("#### 21 May 2023\n- [replaced 3 Jun 2023] coffee_order: Orders a flat white");
    expect(then).not.toContain("oat latte");
    const history = memoryBlock((await contextFor("what coffee do I order?", "&include=superseded")).system);
    expect(history).toContain("#### 3 Jun 2023\n- coffee_order: Orders an oat latte\n#### 21 May 2023\n- [replaced 3 Jun 2023] coffee_order: Orders a flat white");
  });

  it("says no day under a heading that names it already: a dated chat's tag", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await store(auth, { category: "context", key: "d1_1", content: "Anna: I finally went to the pottery class", tags: ["8 May 2023"], observed_at: "2023-05-08T13:56:00Z" });
    await store(auth, { category: "context", key: "d2_1", content: "Anna: The pottery class fired my bowl", tags: ["8 May 2023"], observed_at: "2023-06-12T09:00:00Z" });
    const res = await call("GET", `/sessions/${s.id}/context?q=${encodeURIComponent("pottery class")}`, auth);
    const block = memoryBlock(res.json.system);
    // The heading's own day comes first, under it; a later day after, under its line.
    expect(block).toContain("### 8 may 2023\n- Anna: I finally went to the pottery class\n#### 12 Jun 2023\n- Anna: The pottery class fired my bowl");
  });
});

import { describe, expect, it } from "vitest";
import { call, newTenant, store } from "./helpers";

describe("smoke", () => {
  it("health", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
  });
  it("store and search", async () => {
    const t = await newTenant();
    const m = await store({ token: t.token, mind: t.mind.id }, { key: "likes_milk", content: "Он любит молоко" });
    expect(m.source).toBe("user");
    const res = await call("GET", "/memory/search?q=" + encodeURIComponent("любить молока"), { token: t.token, mind: t.mind.id });
    expect(res.status).toBe(200);
    expect(res.json.results[0].id).toBe(m.id);
  });
});

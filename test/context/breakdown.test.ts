import { describe, expect, it } from "vitest";
import { call, newKey, store } from "../helpers";
import { newAuth, openSession } from "../sessions/session-helpers";

// The fields of a part in GET /sessions/:id/context, as the Context schema documents them.
const PART_FIELDS = ["part", "ref", "verified", "text", "tokens", "included", "reason", "duplicate_of"];

describe("context breakdown", () => {
  it("each part carries only the documented fields, not what the packing reads to fold and pay for headings", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    const tea = await store(auth, { key: "tea", content: "Drinks green tea every morning", tags: ["2024-05-01"], observed_at: "2024-05-01T07:00:00Z" });
    const { key } = await newKey(auth.token, auth.mind);
    await store({ token: key }, { key: "tea_shop", content: "Buys green tea at the corner shop" });

    const res = await call("GET", `/sessions/${s.id}/context?q=${encodeURIComponent("green tea")}`, auth);
    expect(res.status).toBe(200);
    const parts = res.json.parts as Record<string, unknown>[];
    // Search hits under a heading, one unverified (its mark's line paid by it): the items the packing annotates most.
    expect(parts.filter((p) => p.part === "search" && p.included)).toHaveLength(2);
    expect(res.json.system).toContain("### 2024-05-01\n#### 1 May 2024\n- Drinks green tea every morning");
    expect(tea.observed_at).toBe("2024-05-01T07:00:00.000Z");
    expect(res.json.system).toContain("[unverified] items were not confirmed");
    for (const p of parts) expect(Object.keys(p).filter((k) => !PART_FIELDS.includes(k))).toEqual([]);
  });
});

import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createLoginLink, redeemLoginLink } from "../../src/auth/login-links";
import { call } from "../helpers";
import { DAY, manualClock, testDeps } from "../support/deps";
import { runNow } from "../support/jobs";
import { append, channel, contents, newAuth, openSession, patchSettings } from "./session-helpers";

describe("daily retention of sessions", () => {
  it("trims histories longer than a lowered history_cap to their newest messages, and only those", async () => {
    const auth = await newAuth({ history_cap: 30 });
    const long = await openSession(auth);
    const short = await openSession(auth);
    for (let i = 1; i <= 30; i++) await append(auth, long.id, { content: `long ${i}` });
    for (let i = 1; i <= 5; i++) await append(auth, short.id, { content: `short ${i}` });
    await patchSettings(auth, { history_cap: 20 });

    const counts: Record<string, number | string> = {};
    await runNow("retention", testDeps(), counts);
    expect(counts.messages_over_history_cap).toBeGreaterThanOrEqual(10);
    const kept = contents(await channel(auth, long.id, "ui", "&limit=200"));
    expect(kept).toEqual(Array.from({ length: 20 }, (_, i) => `long ${i + 11}`));
    expect(contents(await channel(auth, short.id, "ui", "&limit=200"))).toHaveLength(5);

    const again: Record<string, number | string> = {};
    await runNow("retention", testDeps(), again);
    expect(contents(await channel(auth, long.id, "ui", "&limit=200"))).toHaveLength(20);
  });
});

describe("login links", () => {
  it("work once, within their lifetime, and are deleted a day after they expire", async () => {
    const auth = await newAuth();
    const now = new Date("2026-03-01T10:00:00.000Z");
    const deps = testDeps({ clock: manualClock(now) });
    const link = await createLoginLink(deps, { accountId: auth.accountId, mindId: auth.mind });
    expect(link.expires_at).toBe("2026-03-01T10:10:00.000Z");
    expect(link.token.length).toBeGreaterThanOrEqual(40);

    const [first, second] = await Promise.allSettled([redeemLoginLink(deps, link.token), redeemLoginLink(deps, link.token)]);
    const outcomes = [first, second].map((o) => o.status).sort();
    expect(outcomes).toEqual(["fulfilled", "rejected"]);
    const granted = [first, second].find((o) => o.status === "fulfilled") as PromiseFulfilledResult<unknown>;
    expect(granted.value).toEqual({ accountId: auth.accountId, mindId: auth.mind });

    const late = await createLoginLink(deps, { accountId: auth.accountId, mindId: null });
    await expect(redeemLoginLink(testDeps({ clock: manualClock("2026-03-01T10:10:00.000Z") }), late.token)).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(redeemLoginLink(deps, "not-a-token")).rejects.toMatchObject({ code: "unauthorized" });
    const stored = await env.DB.prepare("select token_hash from login_links where account_id = ?").bind(auth.accountId).all();
    expect(JSON.stringify(stored.results)).not.toContain(link.token);

    const counts: Record<string, number | string> = {};
    await runNow("retention", testDeps({ clock: manualClock(new Date(now.getTime() + DAY + 11 * 60_000)) }), counts);
    expect(counts.login_links_expired).toBeGreaterThanOrEqual(2);
    const left = await env.DB.prepare("select count(*) as n from login_links where account_id = ?").bind(auth.accountId).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });

  it("go with the mind they were made for", async () => {
    const auth = await newAuth();
    await createLoginLink(testDeps(), { accountId: auth.accountId, mindId: auth.mind });
    const erased = await call("DELETE", `/minds/${auth.mind}`, { token: auth.token });
    expect(erased.status).toBe(200);
    expect(erased.json.deleted).toMatchObject({ minds: 1, login_links: 1 });
  });
});

import { describe, expect, it } from "vitest";
import { wakeDelivery } from "../../src/events/wake";
import { addressKind } from "../../src/http/public-address";
import { storeMemory } from "../../src/memory/memories";
import { createWebhook, listAttempts } from "../../src/webhooks/subscriptions";
import { call, newKey, newTenant } from "../helpers";
import { inMind, manualClock } from "../support/deps";
import { drain, workDeps } from "../support/jobs";
import { PUBLIC_ADDRESS, standInReceivers } from "../support/webhooks";

// No way in through a webhook's URL: https to public addresses only, whatever the spelling of
// the address, a name resolving anywhere else refused, at creation and again at delivery.

const net = standInReceivers();
net.resolve("receiver.test", PUBLIC_ADDRESS);
net.resolve("internal.test", "10.0.0.7");
net.resolve("metadata.test", "169.254.169.254");
net.resolve("loopback.test", "127.0.0.1");
net.resolve("v6-loopback.test", "::1");
net.resolve("v6-private.test", "fd00:ec2::254");
net.resolve("mixed.test", PUBLIC_ADDRESS, "192.168.1.20");
net.resolve("dual.test", PUBLIC_ADDRESS, "2606:4700:4700::1111");

describe("which addresses are public", () => {
  it("takes loopback, private, link-local, shared, reserved and IPv4-carrying IPv6 forms for what they are", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["10.0.0.1", "private"],
      ["10.255.255.255", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.1", "private"],
      ["192.168.0.1", "private"],
      ["169.254.169.254", "private"],
      ["100.100.100.200", "private"],
      ["0.0.0.0", "private"],
      ["224.0.0.1", "private"],
      ["255.255.255.255", "private"],
      ["198.18.0.1", "private"],
      ["::", "private"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:a00:1", "private"],
      ["::ffff:169.254.169.254", "private"],
      ["64:ff9b::a9fe:a9fe", "private"],
      ["2002:a00:1::", "private"],
      ["fd00:ec2::254", "private"],
      ["fc00::1", "private"],
      ["fe80::1%eth0", "private"],
      ["ff02::1", "private"],
      ["2001:db8::1", "private"],
      ["2001::1", "private"],
      ["8.8.8.8", "public"],
      ["172.32.0.1", "public"],
      ["93.184.216.34", "public"],
      ["2606:4700:4700::1111", "public"],
      ["::ffff:8.8.8.8", "public"],
    ];
    for (const [address, kind] of cases) expect(addressKind(address), address).toBe(kind);
    for (const notAnAddress of ["receiver.test", "1.2.3", "300.1.1.1", "1::2::3", "12345::"]) expect(addressKind(notAnAddress), notAnAddress).toBeNull();
  });
});

describe("a webhook's URL at creation", () => {
  it("refuses loopback, private, link-local and metadata addresses however spelled, plain http, and names that resolve there", async () => {
    const t = await newTenant();
    const refused = [
      "https://127.0.0.1/hook",
      "http://127.0.0.1:8788/hook",
      "https://localhost/hook",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://2130706433/hook",
      "https://0177.0.0.1/hook",
      "https://0x7f.1/hook",
      "https://10.0.0.1/hook",
      "https://10.200.3.4/hook",
      "https://012.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data/",
      "https://0xa9fea9fe/",
      "https://[::ffff:169.254.169.254]/",
      "https://[fd00:ec2::254]/",
      "https://[fe80::1]/",
      "https://internal.test/hook",
      "https://metadata.test/hook",
      "https://loopback.test/hook",
      "https://v6-loopback.test/hook",
      "https://v6-private.test/hook",
      "https://mixed.test/hook",
      "https://nowhere.test/hook",
      "http://receiver.test/hook",
      "https://user:secret@receiver.test/hook",
      "ftp://receiver.test/hook",
      "not a url",
    ];
    for (const url of refused) {
      const res = await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.json.error.message, url).toMatch(/^url: /);
    }
    for (const url of ["https://receiver.test/hook", "https://93.184.216.34/hook", "https://[2606:4700:4700::1111]/hook", "https://dual.test/hook"]) {
      expect((await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url } })).status, url).toBe(201);
    }
    expect((await call("GET", `/minds/${t.mind.id}/webhooks`, { token: t.token })).json.webhooks).toHaveLength(4);
  });

  it("allows loopback only where the development setting says so, and nothing private even then", async () => {
    const t = await newTenant();
    const deps = workDeps();
    const mindContext = await inMind({ ...deps, webhooks: { ...deps.webhooks, allowLoopback: true } }, { mindId: t.mind.id });
    for (const url of ["http://127.0.0.1:8788/hook", "http://localhost:8788/hook", "https://[::1]:8443/hook"]) {
      await expect(createWebhook(mindContext, { url }), url).resolves.toMatchObject({ url });
    }
    for (const url of ["http://10.0.0.1/hook", "https://169.254.169.254/", "http://receiver.test/hook"]) {
      await expect(createWebhook(mindContext, { url }), url).rejects.toThrow(/^url: /);
    }
  });

  it("is a person's to manage, at most ten a mind, with known event types", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const key = await newKey(t.token, t.mind.id);
    const url = "https://receiver.test/managed";
    expect((await call("POST", `/minds/${t.mind.id}/webhooks`, { token: key.key, body: { url } })).status).toBe(403);
    const bad = await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url, types: ["memory.exploded"] } });
    expect(bad.status).toBe(400);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url: `${url}/${i}` } })).json.id);
    const eleventh = await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url } });
    expect(eleventh.status).toBe(409);
    expect((await call("GET", `/minds/${t.mind.id}/webhooks/${ids[0]}`, { token: other.token })).status).toBe(404);
    expect((await call("DELETE", `/minds/${other.mind.id}/webhooks/${ids[0]}`, { token: other.token })).status).toBe(404);
    expect((await call("DELETE", `/minds/${t.mind.id}/webhooks/${ids[0]}`, { token: t.token })).status).toBe(204);
    expect((await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url } })).status).toBe(201);
  });
});

describe("a webhook's URL at delivery", () => {
  it("is checked again: a name that comes to resolve to a private address gets nothing, its attempt failed with the reason", async () => {
    const t = await newTenant();
    const clock = manualClock("2026-04-01T12:00:00.000Z");
    const deps = workDeps({ clock });
    net.resolve("flip.test", PUBLIC_ADDRESS);
    const url = "https://flip.test/hook";
    net.receiver(url);
    const { id } = await createWebhook(await inMind(deps, { mindId: t.mind.id }), { url });
    const mindContext = await inMind(deps, { mindId: t.mind.id });
    net.resolve("flip.test", "10.0.0.8");
    // Past the resolver's TTL (60 s) kept in this isolate.
    clock.advance(5 * 60_000);
    await storeMemory(mindContext, { category: "fact", key: "flipped", content: "Never leaves" });
    await wakeDelivery(deps.queue, mindContext.mind);
    await drain(deps);
    expect(net.at(url)).toEqual([]);
    const [attempt] = await listAttempts(mindContext, id);
    expect(attempt).toMatchObject({ ok: false, status: null, error: "refused: flip.test resolves to 10.0.0.8, which is not a public address" });
  });

  it("refuses a loopback receiver once the development setting is off, though it was allowed when the webhook was made", async () => {
    const t = await newTenant();
    const deps = workDeps();
    const url = "http://127.0.0.1:8788/hook";
    net.receiver(url);
    const allowed = await inMind({ ...deps, webhooks: { ...deps.webhooks, allowLoopback: true } }, { mindId: t.mind.id });
    const { id } = await createWebhook(allowed, { url });
    const mindContext = await inMind({ ...deps, webhooks: { ...deps.webhooks, allowLoopback: false } }, { mindId: t.mind.id });
    await storeMemory(mindContext, { category: "fact", key: "local", content: "Stays here" });
    await wakeDelivery(deps.queue, mindContext.mind);
    await drain({ ...deps, webhooks: mindContext.webhooks });
    expect(net.at(url)).toEqual([]);
    const [attempt] = await listAttempts(mindContext, id);
    expect(attempt).toMatchObject({ ok: false, status: null });
    expect(attempt!.error).toMatch(/^refused: 127\.0\.0\.1 is a loopback address/);
  });
});

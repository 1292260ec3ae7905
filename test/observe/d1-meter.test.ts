import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createD1Meter } from "../../src/observe/d1-meter";
import { RoundTrips, recordingD1 } from "../support/recording-d1";

describe("counting D1 work", () => {
  it("the meter counts a batch as one round trip and sees statements run through a session", async () => {
    const meter = createD1Meter();
    const d1 = meter.wrap(env.DB);
    await d1.batch([d1.prepare("select 1"), d1.prepare("select 2")]);
    const session = d1.withSession("first-unconstrained");
    await session.prepare("select 3").first();
    await session.batch([session.prepare("select 4"), session.prepare("select 5")]);
    expect(meter.totals()).toMatchObject({ d1_queries: 5, d1_round_trips: 3 });
  });

  it("the recording handle notes a session's statements, each round trip, and which of them were serial", async () => {
    const log: string[] = [];
    const trips = new RoundTrips();
    const d1 = recordingD1(env.DB, log, trips);
    const session = d1.withSession("first-primary");
    await session.prepare("select 1").first();
    await session.batch([session.prepare("select 2"), session.prepare("select 3")]);
    await Promise.all([d1.prepare("select 4").all(), d1.prepare("select 5").raw()]);
    expect(log).toEqual(["select 1", "select 2", "select 3", "select 4", "select 5"]);
    expect(trips.all).toEqual([["select 1"], ["select 2", "select 3"], ["select 4"], ["select 5"]]);
    expect(trips.serial).toBe(3);
    expect(trips.starts).toEqual(["first-primary"]);
  });
});

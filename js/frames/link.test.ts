import { describe, expect, it } from "vitest";
import { LinkEstimate } from "./link.ts";

describe("LinkEstimate", () => {
  it("takes the quickest recent probe as the round trip and the best large reply's rate as the throughput", () => {
    const link = new LinkEstimate();
    link.record(160, 2_000, true);
    link.record(150, 1_000, true);
    link.record(350, 250_000); // 250 KB in 200 ms past the round trip
    expect(link.roundTripMs).toBe(150);
    expect(link.bytesPerMs).toBe(1250);
  });

  it("times the round trip from probes alone: a large reply, or one beside others, waits for more than the link", () => {
    const link = new LinkEstimate();
    link.record(169, 32_000);
    link.record(120, 93_000);
    expect(link.roundTripMs).toBeUndefined();
    expect(link.settled).toBe(false);
    expect(link.far).toBe(false);
  });

  it("is near after one quick probe, keeping one request in flight: the CPU, not the link, limits the fill", () => {
    const link = new LinkEstimate();
    link.record(8, 1_000, true);
    link.record(60, 256_000);
    expect(link.settled).toBe(true);
    expect(link.far).toBe(false);
    expect(link.inFlight(256_000, 8)).toBe(1);
  });

  it("is far after two slow probes, not one: the kernel may still be running the cell that showed the viewer", () => {
    const link = new LinkEstimate();
    link.record(169, 1_000, true);
    expect(link.settled).toBe(false);
    expect(link.far).toBe(false);
    link.record(150, 1_000, true);
    expect(link.settled).toBe(true);
    expect(link.far).toBe(true);
  });

  it("far from it, one more request than fit in the link's bandwidth-delay product, within the bound", () => {
    const link = new LinkEstimate();
    link.record(150, 1_000, true);
    link.record(150, 1_000, true);
    expect(link.inFlight(32_000, 8)).toBe(2); // before a large reply has shown the rate
    link.record(150 + 100, 125_000); // 1,250 bytes a ms: 187.5 KB a round trip
    expect(link.inFlight(128_000, 8)).toBe(3);
    expect(link.inFlight(32_000, 8)).toBe(7);
    expect(link.inFlight(1_000, 8)).toBe(8);
  });

  it("forgets old probes, so it follows a link that changes", () => {
    const link = new LinkEstimate();
    link.record(5, 1_000, true);
    for (let i = 0; i < 16; i++) link.record(150, 1_000, true);
    expect(link.roundTripMs).toBe(150);
    expect(link.far).toBe(true);
  });
});

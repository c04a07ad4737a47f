import { describe, expect, it } from "vitest";
import { LinkEstimate } from "./link.ts";

describe("LinkEstimate", () => {
  it("takes the quickest recent reply as the round trip and the best large one's rate as the throughput", () => {
    const link = new LinkEstimate();
    link.record(160, 2_000);
    link.record(150, 1_000);
    link.record(350, 250_000); // 250 KB in 200 ms past the round trip
    expect(link.roundTripMs).toBe(150);
    expect(link.bytesPerMs).toBe(1250);
  });

  it("keeps one request in flight near the kernel, where the CPU, not the link, limits the fill", () => {
    const link = new LinkEstimate();
    link.record(8, 1_000);
    link.record(20, 256_000);
    expect(link.far).toBe(false);
    expect(link.inFlight(256_000, 8)).toBe(1);
  });

  it("far from it, one more request than fit in the link's bandwidth-delay product, within the bound", () => {
    const link = new LinkEstimate();
    link.record(150, 1_000);
    expect(link.inFlight(32_000, 8)).toBe(2); // before a large reply has shown the rate
    link.record(150 + 100, 125_000); // 1,250 bytes a ms: 187.5 KB a round trip
    expect(link.inFlight(128_000, 8)).toBe(3);
    expect(link.inFlight(32_000, 8)).toBe(7);
    expect(link.inFlight(1_000, 8)).toBe(8);
  });

  it("forgets old replies, so it follows a link that changes", () => {
    const link = new LinkEstimate();
    link.record(5, 1_000);
    for (let i = 0; i < 16; i++) link.record(150, 1_000);
    expect(link.roundTripMs).toBe(150);
  });
});

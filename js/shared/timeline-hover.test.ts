import { describe, expect, it } from "vitest";
import { valuesAt } from "./timeline-hover.ts";

describe("valuesAt", () => {
  const rewards = Float64Array.of(1, 0, 1);

  it("reads each exact series at the position, with its smoothed value where given", () => {
    const smoothed = Float64Array.of(1, 0.375, 0.69);
    const values = valuesAt(
      [
        { key: "reward", name: "reward", color: "#0a0", values: rewards, smoothed },
        { key: "return", name: "return", color: "#00a", values: Float64Array.of(0, 1, 1, 2) },
      ],
      1,
    );
    expect(values).toEqual([
      { name: "reward", color: "#0a0", value: 0, smoothed: 0.375 },
      { name: "return", color: "#00a", value: 1 },
    ]);
  });

  it("has no reward at the last position, which has no action", () => {
    expect(valuesAt([{ key: "reward", name: "reward", color: "#0a0", values: rewards }], 3)[0].value).toBeUndefined();
  });

  it("reads a summary's column as its lowest and highest values", () => {
    const bins = { min: Float64Array.of(-1, Number.NaN), max: Float64Array.of(2, Number.NaN) };
    const [column, empty] = [0, 1].map((c) => valuesAt([{ key: "reward", name: "reward", color: "#0a0", values: bins }], c)[0]);
    expect(column).toEqual({ name: "reward", color: "#0a0", value: 2, range: [-1, 2] });
    expect(empty.value).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { integers, returnLines, seedLabel, stepLabel, trainingStepLabels } from "./runs.ts";

const packed = (values: number[]) => new DataView(new Float64Array(values).buffer);

describe("a checkpoint viewer's traits", () => {
  it("reads each seed's returns, NaN past what was sent", () => {
    const [a, b] = returnLines([packed([9, 150]), packed([10])], 2);
    expect([...a]).toEqual([9, 150]);
    expect(b[0]).toBe(10);
    expect(Number.isNaN(b[1])).toBe(true);
    expect(returnLines("junk", 3)).toEqual([]);
  });

  it("keeps whole numbers only", () => {
    expect(integers([1000, "2000", 2.5, 3000])).toEqual([1000, 3000]);
    expect(integers(null)).toEqual([]);
  });

  it("names the training step shown, clamped, and says when there is none", () => {
    expect(stepLabel([1000, 12000], 1)).toBe("training step 12,000 (2 of 2)");
    expect(stepLabel([1000, 12000], 7)).toBe("training step 12,000 (2 of 2)");
    expect(stepLabel([], 0)).toBe("no checkpoint yet");
  });

  it("labels the chart's checkpoints with their training steps, on one unit", () => {
    expect(trainingStepLabels([1000, 2000, 3000, 4000], [0, 1, 2, 3])).toEqual(["1000", "2000", "3000", "4000"]);
    expect(trainingStepLabels([5000, 10000, 15000, 20000], [0, 2])).toEqual(["5k", "15k"]);
  });

  it("says a seed's return, or that it was not evaluated", () => {
    expect(seedLabel(1, 187.004)).toBe("seed 1: 187");
    expect(seedLabel(0, Number.NaN)).toBe("seed 0: not evaluated");
  });
});

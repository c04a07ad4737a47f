import { describe, expect, it } from "vitest";
import { displaySize } from "./canvas.ts";

describe("displaySize", () => {
  it("scales small frames up by a whole factor to about 400 px tall", () => {
    expect(displaySize(160, 210, { height: 0, scale: 0 })).toEqual({ width: 320, height: 420 });
    expect(displaySize(8, 8, { height: 0, scale: 0 })).toEqual({ width: 400, height: 400 });
  });

  it("never scales large frames down on its own", () => {
    expect(displaySize(600, 400, { height: 0, scale: 0 })).toEqual({ width: 600, height: 400 });
    expect(displaySize(640, 960, { height: 0, scale: 0 })).toEqual({ width: 640, height: 960 });
  });

  it("uses the scale trait when set", () => {
    expect(displaySize(160, 210, { height: 0, scale: 1.5 })).toEqual({ width: 240, height: 315 });
  });

  it("lets the height trait win over scale, keeping the aspect ratio", () => {
    expect(displaySize(160, 210, { height: 105, scale: 3 })).toEqual({ width: 80, height: 105 });
  });
});

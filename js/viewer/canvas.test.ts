import { describe, expect, it } from "vitest";
import { displaySize, missingFrameMessage } from "./canvas.ts";

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

describe("displaySize fitting a room", () => {
  const room = (width: number, height: number) => ({ height: 0, scale: 0, fit: "fit" as const, room: { width, height } });

  it("scales a small frame up by the largest whole factor that fits the room", () => {
    // Pong in a 1,000 x 700 room: 3x by height (630), not 6x by width.
    expect(displaySize(160, 210, room(1000, 700))).toEqual({ width: 480, height: 630 });
    // The same frame beside cards in a narrow room: 2x by width.
    expect(displaySize(160, 210, room(400, 700))).toEqual({ width: 320, height: 420 });
  });

  it("scales a frame larger than its room down smoothly, by the exact ratio", () => {
    expect(displaySize(600, 400, room(300, 700))).toEqual({ width: 300, height: 200 });
  });

  it("keeps whole device pixels a frame pixel at a fractional pixel ratio", () => {
    // 3.33x by height is 4.17 device pixels: 4, that is 3.2 CSS px.
    const size = displaySize(160, 210, room(1000, 700), 1.25);
    expect(size.height * 1.25).toBe(840);
  });

  it("shows one CSS pixel a frame pixel at 1:1, whatever the room", () => {
    expect(displaySize(160, 210, { ...room(1000, 700), fit: "1:1" })).toEqual({ width: 160, height: 210 });
  });
});

describe("displaySize at a device pixel ratio", () => {
  it("makes a whole factor a whole number of device pixels per frame pixel", () => {
    // At 1.25, twice 210 px would be 2.5 device pixels a frame pixel: 3 instead.
    const size = displaySize(160, 210, { height: 0, scale: 0 }, 1.25);
    expect(size.width * 1.25).toBe(480);
    expect(size.height * 1.25).toBe(630);
    expect(displaySize(160, 210, { height: 0, scale: 2 }, 1.5)).toEqual({ width: 320, height: 420 });
  });

  it("shows a large frame at one device pixel a frame pixel rather than blur it", () => {
    expect(displaySize(600, 500, { height: 0, scale: 0 }, 1.25)).toEqual({ width: 480, height: 400 });
  });

  it("keeps a height or a fractional scale as asked", () => {
    expect(displaySize(160, 210, { height: 105, scale: 0 }, 1.25)).toEqual({ width: 80, height: 105 });
    expect(displaySize(160, 210, { height: 0, scale: 1.5 }, 1.25)).toEqual({ width: 240, height: 315 });
  });
});

describe("missingFrameMessage", () => {
  it("says why a frame is missing when the position's info tells", () => {
    const info = { no_frame: "terminal observation: the vector env reset this sub-env in the step", lives: 0 };
    expect(missingFrameMessage(12, info)).toBe("terminal observation, no frame at step 12");
  });

  it("says only that it is missing otherwise", () => {
    for (const info of [undefined, null, {}, { no_frame: 3 }, { no_frame: "" }, "text"]) {
      expect(missingFrameMessage(6, info)).toBe("no frame at step 6");
    }
  });
});

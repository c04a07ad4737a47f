import { afterEach, describe, expect, it, vi } from "vitest";
import { formatInfoReadout, formatReadout, Readout, readoutFields } from "./readout.ts";
import type { Series } from "./series.ts";

const series = (over: Partial<Series> = {}): Series => ({
  rewards: Float64Array.from([0, 1, 0.5]),
  returns: Float64Array.from([0, 0, 1, 1.5]),
  terminated: Float64Array.from([0, 0, 1]),
  truncated: Float64Array.from([0, 0, 0]),
  actions: Float64Array.from([0, 2, 1]),
  extras: new Map(),
  ...over,
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("formatReadout", () => {
  it("writes the contract's lines: t / T, action, reward, return, flags, info as JSON", () => {
    const text = formatReadout({
      t: 12,
      T: 200,
      action: "2 (RIGHT)",
      reward: 1,
      return: 5,
      terminated: false,
      truncated: false,
      info: { lives: 3 },
      infoLoaded: true,
    });
    expect(text).toBe(
      't = 12 / 200\naction: 2 (RIGHT)\nreward: 1\nreturn: 5\nterminated: false  truncated: false\ninfo: {"lives":3}',
    );
  });

  it("prints the info's numbers to a readable precision", () => {
    const fields = readoutFields(1, series(), { action: "1", info: { prob: 0.33333333333333337 } }, [], 4);
    expect(formatReadout(fields)).toContain('info: {"prob":0.3333}');
  });

  it("keeps <script> in an info string as literal text", () => {
    const fields = readoutFields(1, series(), { action: "1", info: { note: "<script>alert(1)</script>" } }, [], 4);
    expect(formatReadout(fields)).toContain('info: {"note":"<script>alert(1)</script>"}');
  });

  it("says a NaN or infinite reward is not a number and not in the return", () => {
    const fields = { t: 3, T: 9, action: "0", return: 2, terminated: false, truncated: false, info: {}, infoLoaded: true };
    expect(formatReadout({ ...fields, reward: Number.NaN })).toContain(
      "reward: NaN (not a finite number: left out of the return)\nreturn: 2",
    );
    expect(formatReadout({ ...fields, reward: Number.NEGATIVE_INFINITY })).toContain("reward: -Infinity (not a finite");
    expect(formatReadout({ ...fields, reward: 0.5 })).toContain("reward: 0.5\n");
  });

  it("shows an ellipsis for the info until the position's chunk has arrived", () => {
    expect(formatReadout(readoutFields(1, series(), undefined, [], 4))).toMatch(/\ninfo: …$/);
  });
});

describe("readoutFields", () => {
  it("reads reward, return and flags of position t from the series", () => {
    const f = readoutFields(2, series(), { action: "1 (FIRE)", info: {} }, [], 4);
    expect(f).toMatchObject({ t: 2, T: 3, action: "1 (FIRE)", reward: 0.5, return: 1, terminated: true, truncated: false });
  });

  it("has no reward at the last position and tells how the episode ended", () => {
    const f = readoutFields(3, series(), { action: "", info: {} }, [], 4);
    expect(f).toMatchObject({ t: 3, T: 3, action: "", reward: undefined, return: 1.5, terminated: true });
    expect(formatReadout(f)).toContain("reward: -\nreturn: 1.5\nterminated: true  truncated: false");
  });

  it("prefers the kernel's action text, else names the scalar action from the series", () => {
    expect(readoutFields(1, series(), { action: "[0.1, -0.3]", info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe(
      "[0.1, -0.3]",
    );
    expect(readoutFields(1, series(), undefined, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("2 (RIGHT)");
    expect(readoutFields(1, series(), { info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("2 (RIGHT)");
    expect(readoutFields(3, series(), { info: {} }, ["NOOP", "FIRE", "RIGHT"], 4).action).toBe("");
    expect(readoutFields(1, series(), undefined, [], 4).action).toBe("2");
    expect(readoutFields(1, series({ actions: undefined }), undefined, [], 4).action).toBe("");
  });
});

describe("Readout", () => {
  it("writes textContent and never innerHTML", () => {
    const element = {
      className: "",
      textContent: "",
      set innerHTML(_: string) {
        throw new Error("innerHTML must not be used");
      },
    };
    vi.stubGlobal("document", { createElement: () => element });
    const parent = { appendChild: <T>(child: T) => child } as unknown as HTMLElement;
    const readout = new Readout(parent);
    readout.show(readoutFields(0, series(), { action: "0", info: { html: "<b>x</b>" } }, [], 4));
    expect(element.className).toBe("aw-readout");
    expect(element.textContent).toContain('"<b>x</b>"');
  });
});

describe("readoutFields of a long episode", () => {
  const empty = series({ rewards: new Float64Array(0), returns: new Float64Array(0), actions: undefined });
  const values = { steps: 50_000, reward: -1, return: 7, terminated: false, truncated: true, action: 2 };

  it("reads the values its chunk brought, the state holding only the timeline's summary", () => {
    const fields = readoutFields(40_000, empty, { info: {}, values }, ["NOOP", "FIRE", "RIGHT"], 50_001);
    expect(formatReadout(fields)).toBe(
      "t = 40000 / 50000\naction: 2 (RIGHT)\nreward: -1\nreturn: 7\nterminated: false  truncated: true\ninfo: {}",
    );
  });

  it("says a non-finite reward as the series would", () => {
    const fields = readoutFields(3, empty, { info: {}, values: { ...values, reward: Number.NaN } }, [], 50_001);
    expect(formatReadout(fields)).toContain("reward: NaN (not a finite number: left out of the return)");
  });
});

describe("formatInfoReadout", () => {
  it("writes the position and each info entry, numbers rounded, null as -", () => {
    const info = { episode: 811, return: 1, "moving average": 0.33333333333333337, note: "ok", window: [1, 2] };
    expect(formatInfoReadout(12, 41, info, true)).toBe(
      "position 12 / 40\nepisode: 811\nreturn: 1\nmoving average: 0.3333\nnote: ok\nwindow: [1,2]",
    );
    expect(formatInfoReadout(0, 41, { episode: null }, true)).toBe("position 0 / 40\nepisode: -");
  });

  it("says nothing of actions, rewards or returns", () => {
    const text = formatInfoReadout(3, 10, { episode: 2 }, true);
    expect(text).not.toMatch(/action|reward|return|terminated/);
  });

  it("waits for the position's info", () => {
    expect(formatInfoReadout(3, 10, undefined, false)).toBe("position 3 / 9\n…");
  });
});

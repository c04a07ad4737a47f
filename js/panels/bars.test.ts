import { describe, expect, it } from "vitest";
import { contrast, THEMES } from "../shared/test-helpers.ts";
import { BAR_COLOR, barExtent, drawBars, HIGHLIGHT_COLOR, layoutBars, ROW_HEIGHT } from "./bars.ts";

const values = (...xs: number[]) => Float64Array.from(xs);

describe("layoutBars", () => {
  it("gives one row per value, top to bottom, labelled", () => {
    const layout = layoutBars(values(1, 2, 3), ["NOOP", "FIRE", "RIGHT"], 300);
    expect(layout.rows.map((r) => [r.label, r.y])).toEqual([
      ["NOOP", 2],
      ["FIRE", 2 + ROW_HEIGHT],
      ["RIGHT", 2 + 2 * ROW_HEIGHT],
    ]);
    expect(layout.height).toBe(3 * ROW_HEIGHT);
  });

  it("highlights the taken action's bar only", () => {
    const layout = layoutBars(values(1, 2, 3), ["a", "b", "c"], 300, { highlight: 1 });
    expect(layout.rows.map((r) => r.highlight)).toEqual([false, true, false]);
  });

  it("highlights nothing without an action", () => {
    expect(layoutBars(values(1, 2), ["a", "b"], 300).rows.some((r) => r.highlight)).toBe(false);
  });

  it("grows positive bars right from zero, in proportion, the largest to the right edge", () => {
    const layout = layoutBars(values(0, 1, 2), ["a", "b", "c"], 1000);
    expect(layout.zeroX).toBe(layout.left);
    const [zero, one, two] = layout.rows;
    expect(zero.width).toBe(0);
    expect(two.x + two.width).toBe(layout.right);
    expect(two.width).toBeCloseTo(2 * one.width);
  });

  it("puts zero inside the axis when values have both signs", () => {
    const layout = layoutBars(values(-1, 3), ["a", "b"], 1000);
    const [negative, positive] = layout.rows;
    expect(layout.zeroX).toBeCloseTo(layout.left + (layout.right - layout.left) / 4);
    expect(negative.x + negative.width).toBeCloseTo(layout.zeroX);
    expect(positive.x).toBeCloseTo(layout.zeroX);
    expect(positive.width).toBeCloseTo(3 * negative.width);
  });

  it("draws all-negative values leftwards from zero at the right edge", () => {
    const layout = layoutBars(values(-2, -1), ["a", "b"], 1000);
    expect(layout.zeroX).toBe(layout.right);
    expect(layout.rows[0].x).toBe(layout.left);
  });

  it("shows missing values as text without a bar and leaves them out of the axis", () => {
    const layout = layoutBars(values(Number.NaN, 4), ["a", "b"], 1000);
    expect(layout.rows[0]).toMatchObject({ text: "nan", width: 0 });
    expect(layout.rows[1].x + layout.rows[1].width).toBe(layout.right);
  });

  it("writes every value of a card with one number of decimals, without float noise", () => {
    expect(layoutBars(values(0.1 + 0.2, 5), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["0.3", "5.0"]);
    expect(layoutBars(values(0.036, 0.0454), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["0.0360", "0.0454"]);
    expect(layoutBars(values(Number.NaN, 2), ["a", "b"], 300).rows.map((r) => r.text)).toEqual(["nan", "2"]);
  });

  it("puts a value axis of nice ticks under the bars, fitted to them (js/shared/axis.ts)", () => {
    const layout = layoutBars(values(0.609, -0.127), ["a", "b"], 1000);
    expect(layout.ticks.map((t) => t.label)).toEqual(["0.0", "0.2", "0.4", "0.6"]);
    expect(barExtent(values(0.609, -0.127))).toEqual([-0.14, 0.62]); // not -0.25 to 0.75
    expect(layout.ticks.find((t) => t.value === 0)!.x).toBeCloseTo(layout.zeroX);
  });

  it("keeps a fixed scale's ends and ticks inside it", () => {
    const layout = layoutBars(values(5), ["a"], 1000, { scale: [-10, 10] });
    expect(layout.ticks.map((t) => t.label)).toEqual(["-10", "-5", "0", "5", "10"]);
  });

  it("numbers rows that have no label", () => {
    expect(layoutBars(values(1, 2), ["a"], 300).rows[1].label).toBe("1");
  });

  it("keeps equal values visible when all are zero", () => {
    const layout = layoutBars(values(0, 0), ["a", "b"], 300);
    expect(layout.rows.every((r) => Number.isFinite(r.x) && r.width === 0)).toBe(true);
  });

  it("marks the greedy bar, which may differ from the taken one", () => {
    const layout = layoutBars(values(1, 2, 3), ["a", "b", "c"], 300, { highlight: 0, greedy: 2 });
    expect(layout.rows.map((r) => [r.highlight, r.greedy])).toEqual([
      [true, false],
      [false, false],
      [false, true],
    ]);
  });

  it("uses a fixed scale when given, cutting values outside it", () => {
    const layout = layoutBars(values(5, 20), ["a", "b"], 1000, { scale: [-10, 10] });
    expect(layout.zeroX).toBeCloseTo((layout.left + layout.right) / 2);
    const [five, twenty] = layout.rows;
    expect(five.width).toBeCloseTo((layout.right - layout.left) / 4);
    expect(twenty.x + twenty.width).toBe(layout.right);
  });
});

describe("a continuous actor's bars", () => {
  const xOn = (layout: ReturnType<typeof layoutBars>, value: number, [lo, hi]: [number, number]) =>
    layout.left + ((value - lo) / (hi - lo)) * (layout.right - layout.left);

  it("puts a whisker from low to high and the action taken as a mark on each bar", () => {
    const scale: [number, number] = [-2, 2]; // Pendulum's torque bounds
    const layout = layoutBars(values(0.5, -1), ["a[0]", "a[1]"], 1000, {
      scale,
      ranges: [
        [0.25, 1],
        [-1.5, -0.5],
      ],
      marks: [0.75, -1.25],
    });
    const [first, second] = layout.rows;
    expect(first.whisker).toEqual([xOn(layout, 0.25, scale), xOn(layout, 1, scale)]);
    expect(second.whisker).toEqual([xOn(layout, -1.5, scale), xOn(layout, -0.5, scale)]);
    expect(first.mark).toBeCloseTo(xOn(layout, 0.75, scale));
    expect(second.mark).toBeCloseTo(xOn(layout, -1.25, scale));
  });

  it("widens a free axis to hold the whiskers and marks", () => {
    const layout = layoutBars(values(0.5), ["a[0]"], 1000, { ranges: [[0, 3.2]], marks: [-0.4] });
    const [low, high] = barExtent(values(0.5), null, [0, 3.2, -0.4]);
    expect(low).toBeLessThanOrEqual(-0.4);
    expect(high).toBeGreaterThanOrEqual(3.2);
    expect(layout.ticks[0].value).toBeGreaterThanOrEqual(low);
    expect(layout.ticks.at(-1)!.value).toBeLessThanOrEqual(high);
  });

  it("draws no whisker or mark where the card gives none, or gives NaN", () => {
    const layout = layoutBars(values(1, 2), ["a", "b"], 300, { ranges: [[NaN, NaN], [1, 3]], marks: [NaN, 2] });
    expect(layout.rows.map((r) => [r.whisker === null, r.mark === null])).toEqual([
      [true, true],
      [false, false],
    ]);
    expect(layoutBars(values(1), ["a"], 300).rows[0]).toMatchObject({ whisker: null, mark: null });
  });
});

describe("the bars' colours", () => {
  it("are the same in both themes and read on either background", () => {
    for (const theme of Object.values(THEMES)) {
      expect(contrast(BAR_COLOR, theme.background)).toBeGreaterThanOrEqual(2.5);
      expect(contrast(HIGHLIGHT_COLOR, theme.background)).toBeGreaterThanOrEqual(3);
    }
  });
});

/**
 * A canvas whose 2-D context paints rectangles and filled paths (by their bounding
 * boxes) into a grid of CSS pixels, each pixel the last colour painted on it, and
 * keeps the texts written with their font.
 */
function paintedCanvas(width: number, height: number) {
  const pixels = Array.from({ length: height }, () => new Array<string>(width).fill(""));
  const texts: { text: string; font: string; y: number }[] = [];
  let path: [number, number][] = [];
  const paint = (x0: number, y0: number, x1: number, y1: number, colour: string) => {
    for (let y = Math.max(0, Math.floor(y0)); y < Math.min(height, Math.ceil(y1)); y++)
      for (let x = Math.max(0, Math.floor(x0)); x < Math.min(width, Math.ceil(x1)); x++) pixels[y][x] = colour;
  };
  const c = {
    fillStyle: "",
    strokeStyle: "",
    lineWidth: 1,
    font: "",
    textAlign: "",
    textBaseline: "",
    setTransform() {},
    clearRect() {},
    fillRect: (x: number, y: number, w: number, h: number) => paint(x, y, x + w, y + h, c.fillStyle),
    strokeRect: (x: number, y: number, w: number, h: number) => {
      const l = c.lineWidth / 2;
      paint(x - l, y - l, x + w + l, y + l, c.strokeStyle); // the four sides
      paint(x - l, y + h - l, x + w + l, y + h + l, c.strokeStyle);
      paint(x - l, y - l, x + l, y + h + l, c.strokeStyle);
      paint(x + w - l, y - l, x + w + l, y + h + l, c.strokeStyle);
    },
    fillText: (text: string, _x: number, y: number) => texts.push({ text, font: c.font, y }),
    beginPath: () => (path = []),
    moveTo: (x: number, y: number) => path.push([x, y]),
    lineTo: (x: number, y: number) => path.push([x, y]),
    closePath() {},
    fill: () => {
      const xs = path.map((p) => p[0]);
      const ys = path.map((p) => p[1]);
      paint(Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys), c.fillStyle);
    },
  };
  const canvas = { width: 0, height: 0, style: {} as Record<string, string>, getContext: () => c };
  return { canvas: canvas as unknown as HTMLCanvasElement, pixels, texts };
}

describe("the greedy action's mark", () => {
  const palette = { text: "#212121", background: "#ffffff", dark: false };
  // Q-values whose greedy action (0.426) is small beside the axis maximum (30).
  const q = values(0.426, 30, 12);
  const draw = (greedy: number | null) => {
    const layout = layoutBars(q, ["NOOP", "FIRE", "RIGHT"], 300, { highlight: 1, greedy });
    const painted = paintedCanvas(300, layout.height);
    drawBars(painted.canvas, layout, palette as never);
    return { layout, ...painted };
  };

  it("paints nothing in the bars' area: a small greedy value does not reach the axis maximum", () => {
    const marked = draw(0);
    const plain = draw(null);
    const row = marked.layout.rows[0];
    const barEnd = Math.round(row.x + row.width);
    for (let y = row.y - 2; y < row.y + row.height + 2; y++) {
      expect(marked.pixels[y].slice(marked.layout.left)).toEqual(plain.pixels[y].slice(plain.layout.left));
      const inked = marked.pixels[y].slice(barEnd + 1, marked.layout.right - 1).filter((p, i) => p !== "" && !isGridline(marked.layout, barEnd + 1 + i));
      expect(inked).toEqual([]);
    }
  });

  it("marks the greedy row beside its label, with the label in bold, and no other row", () => {
    const { layout, pixels, texts } = draw(0);
    const labelArea = (y: number) => pixels[y].slice(0, layout.left).filter((p) => p !== "");
    const middles = layout.rows.map((r) => Math.round(r.y + r.height / 2));
    expect(middles.map((y) => labelArea(y).length > 0)).toEqual([true, false, false]);
    expect(labelArea(middles[0]).every((p) => p === palette.text)).toBe(true);
    const fonts = Object.fromEntries(texts.filter((t) => ["NOOP", "FIRE", "RIGHT"].includes(t.text)).map((t) => [t.text, t.font]));
    expect(fonts).toEqual({ NOOP: "bold 11px sans-serif", FIRE: "11px sans-serif", RIGHT: "11px sans-serif" });
  });
});

function isGridline(layout: ReturnType<typeof layoutBars>, x: number): boolean {
  return layout.ticks.some((t) => Math.round(t.x) === x) || Math.round(layout.zeroX) === x;
}

import { describe, expect, it } from "vitest";
import { luminance, parseColor } from "../shared/theme.ts";
import cases from "./board.cases.json";
import { asCells, asGames, asRatings, axisTicks, barOf, gameName, heatColor, MAX_ALPHA, outcomeText, type Rating, ratingAxis, ratingTexts } from "./board.ts";

const rating = (player: string, rating: number, lower: number, upper: number): Rating => ({ player, rating, lower, upper, games: 4, wins: 2, draws: 0, losses: 2 });

describe("ratingTexts", () => {
  for (const { row, texts } of cases.rows) {
    it(`writes ${row.player}'s row as the kernel's saved copy does`, () => {
      expect(ratingTexts(asRatings([row])[0])).toEqual(texts);
    });
  }
});

describe("the rating axis", () => {
  const rows = [rating("a", 1391, 1060, 1722), rating("b", 1000, 749, 1251), rating("c", 609, 278, 939)];
  const axis = ratingAxis(rows);

  it("holds every interval, its ticks at nice numbers", () => {
    expect(axis.lo).toBeLessThanOrEqual(278);
    expect(axis.hi).toBeGreaterThanOrEqual(1722);
    expect(axis.ticks.every((t) => t % 100 === 0)).toBe(true);
  });

  it("puts each bar where its interval lies, the rating's mark inside it", () => {
    const bars = rows.map((row) => barOf(row, axis));
    for (const [i, bar] of bars.entries()) {
      expect(bar.left).toBeGreaterThanOrEqual(0);
      expect(bar.left + bar.width).toBeLessThanOrEqual(100 + 1e-9);
      expect(bar.mark).toBeGreaterThan(bar.left);
      expect(bar.mark).toBeLessThan(bar.left + bar.width);
      const at = (x: number) => ((x - axis.lo) / (axis.hi - axis.lo)) * 100;
      expect(bar.left).toBeCloseTo(at(rows[i].lower));
      expect(bar.left + bar.width).toBeCloseTo(at(rows[i].upper));
    }
    // Non-overlapping intervals draw non-overlapping bars, in rating order.
    expect(bars[0].left).toBeGreaterThan(bars[2].left + bars[2].width);
  });

  it("labels its ticks where they lie, from 0% to 100% of its width", () => {
    const ticks = axisTicks(axis);
    expect(ticks.map((t) => t.label)).toEqual(axis.labels);
    expect(ticks.every((t) => t.at >= 0 && t.at <= 100)).toBe(true);
    expect(ticks.map((t) => t.at)).toEqual([...ticks.map((t) => t.at)].sort((x, y) => x - y));
  });

  it("is an axis around 1000 with no rows", () => {
    const empty = ratingAxis([]);
    expect(empty.lo).toBeLessThanOrEqual(1000);
    expect(empty.hi).toBeGreaterThanOrEqual(1000);
  });
});

/** The colour seen: `color` (rgba) laid over an opaque `background`. */
function over(color: string, background: string): string {
  const [r, g, b, a] = parseColor(color)!;
  const [R, G, B] = parseColor(background)!;
  return `rgb(${r * a + R * (1 - a)}, ${g * a + G * (1 - a)}, ${b * a + B * (1 - a)})`;
}

function contrast(one: string, two: string): number {
  const [l1, l2] = [luminance(one)!, luminance(two)!].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

describe("heatColor", () => {
  const alpha = (rate: number, dark = false) => parseColor(heatColor(rate, dark))![3];

  it("is the background itself at an even score, and deepens towards either end", () => {
    expect(alpha(0.5)).toBe(0);
    const rates = [0.5, 0.6, 0.75, 0.9, 1];
    const above = rates.map((r) => alpha(r));
    const below = rates.map((r) => alpha(1 - r));
    expect(above).toEqual([...above].sort((x, y) => x - y));
    expect(below).toEqual(above);
    expect(alpha(1)).toBe(MAX_ALPHA);
  });

  it("tells winning from losing by hue", () => {
    const [r1, , b1] = parseColor(heatColor(1, false))!;
    const [r0, , b0] = parseColor(heatColor(0, false))!;
    expect(b1).toBeGreaterThan(r1); // blue: the row won
    expect(r0).toBeGreaterThan(b0); // orange: the row lost
  });

  it("is nothing for a rate that is not a number", () => {
    expect(heatColor(Number.NaN, false)).toBe("transparent");
  });

  // JupyterLab's themes: its light background and text, its dark ones.
  const themes = [
    { dark: false, background: "#ffffff", text: "rgb(33, 33, 33)" },
    { dark: true, background: "#111111", text: "rgb(224, 224, 224)" },
  ];
  for (const { dark, background, text } of themes) {
    it(`keeps the ${dark ? "dark" : "light"} theme's text readable on every cell (WCAG AA, 4.5:1)`, () => {
      for (let rate = 0; rate <= 1; rate += 0.05) {
        expect(contrast(text, over(heatColor(rate, dark), background))).toBeGreaterThanOrEqual(4.5);
      }
    });
  }
});

describe("reading the traits", () => {
  it("keeps rows with finite numbers and games with a known outcome", () => {
    expect(asRatings([{ player: "a", rating: 1, lower: 0, upper: 2 }, { player: "b", rating: null }, 3]).map((r) => r.player)).toEqual(["a"]);
    expect(asCells([{ row: "a", column: "b", rate: 0.5, games: 2 }, { row: "a", column: "c" }])).toHaveLength(1);
    const games = asGames([
      { run: "r", episode: 1, seed: null, first: "a", second: "b", outcome: "win", steps: 9 },
      { run: "r", episode: 2, outcome: "resigned" },
    ]);
    expect(games).toEqual([{ run: "r", episode: 1, seed: null, first: "a", second: "b", outcome: "win", steps: 9 }]);
  });

  it("names a game by its seed, as the arena numbers them, else by its episode", () => {
    const [seeded, unseeded] = asGames([
      { run: "r", episode: 4, seed: 1, first: "a", second: "b", outcome: "win", steps: 9 },
      { run: "r", episode: 2, seed: null, first: "a", second: "b", outcome: "win", steps: 9 },
    ]);
    expect(gameName(seeded)).toBe("game 1");
    expect(gameName(unseeded)).toBe("episode 2");
  });

  it("says who won a game from the cell's side", () => {
    const game = asGames([{ run: "r", episode: 0, seed: 0, first: "b", second: "a", outcome: "loss", steps: 9 }])[0];
    expect(outcomeText(game, "a", "b")).toBe("b won");
    expect(outcomeText({ ...game, outcome: "win" }, "a", "b")).toBe("a won");
    expect(outcomeText({ ...game, outcome: "draw" }, "a", "b")).toBe("draw");
  });
});

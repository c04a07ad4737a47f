import { describe, expect, it } from "vitest";
import { commonDecimals, formatFixed, formatNumber, roundedJson, seriesDecimals } from "./numbers.ts";
import cases from "./numbers.cases.json";

// The cases the kernel's copy of these rules (agent_widget/panels/_numbers.py) is tested against too.
describe("the cases shared with the kernel", () => {
  it.each(cases.formatNumber)("formatNumber(%d) is %j", (value, text) => {
    expect(formatNumber(value as number)).toBe(text);
  });

  it.each(cases.formatFixed)("formatFixed(%d, %j) is %j", (value, decimals, text) => {
    expect(formatFixed(value as number, (decimals as number | null) ?? undefined)).toBe(text);
  });

  it.each(cases.commonDecimals)("commonDecimals(%j) is %d", (values, decimals) => {
    expect(commonDecimals(values as number[])).toBe(decimals);
  });
});

describe("formatFixed", () => {
  it("prints what it cannot fix as formatNumber does", () => {
    expect(formatFixed(undefined, 2)).toBe("-");
    expect(formatFixed(Number.NaN, 2)).toBe("NaN");
    expect(formatFixed(-Infinity, 2)).toBe("-Infinity");
  });
});

describe("seriesDecimals", () => {
  it("gives a legend's range and the readout's values one precision", () => {
    const returns = Float64Array.from([0, -0.52, -129.88341, -268.33554]);
    const decimals = seriesDecimals(returns);
    expect([formatFixed(-268.33554, decimals), formatFixed(-129.88341, decimals)]).toEqual(["-268.336", "-129.883"]);
  });
});

describe("formatNumber", () => {
  it("prints integers plainly and hides float noise", () => {
    expect(formatNumber(5)).toBe("5");
    expect(formatNumber(-21)).toBe("-21");
    expect(formatNumber(0.1 + 0.2)).toBe("0.3");
    expect(formatNumber(123456.75)).toBe("123456.75");
    expect(formatNumber(0.000012345)).toBe("0.00001234");
    expect(formatNumber(Number.NaN)).toBe("NaN");
    expect(formatNumber(undefined)).toBe("-");
  });
});

describe("roundedJson", () => {
  it("rounds every number of an info dict, nested ones too", () => {
    expect(roundedJson({ prob: 0.33333333333333337, lives: 3, deep: [{ x: 2 / 3 }] })).toBe(
      '{"prob":0.3333,"lives":3,"deep":[{"x":0.6667}]}',
    );
  });

  it("leaves strings alone", () => {
    expect(roundedJson({ note: "0.33333333333333337" })).toBe('{"note":"0.33333333333333337"}');
  });
});

describe("commonDecimals", () => {
  it("gives a column three significant digits of its smallest value", () => {
    expect(commonDecimals([102.6667, 14.7271, 98, 9.798])).toBe(2); // 102.67 ± 14.73, 98.00 ± 9.80
  });

  it("prints integers as integers", () => {
    expect(commonDecimals([19, 0, 200])).toBe(0);
  });

  it("uses no more decimals than the values have", () => {
    expect(commonDecimals([19, 14.5, 0])).toBe(1);
  });

  it("stops at four decimals", () => {
    expect(commonDecimals([0.000123456])).toBe(4);
  });

  it("ignores missing values", () => {
    expect(commonDecimals([Number.NaN, 2.5])).toBe(1);
    expect(commonDecimals([])).toBe(0);
  });

  it("reads a whole episode's series, more values than a call takes arguments", () => {
    const rewards = new Float64Array(500_000).fill(1);
    rewards[7] = 0.25;
    expect(commonDecimals(rewards)).toBe(2);
  });
});

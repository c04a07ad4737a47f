import { describe, expect, it } from "vitest";
import { infoRows } from "./info-columns.ts";

describe("infoRows", () => {
  it("rebuilds each position's info with its own keys, in order", () => {
    const rows = infoRows({
      keys: [["lives", "seed"], ["lives"], []],
      key_set: [0, 1, 2, 1],
      columns: { lives: [3, 3, 2], seed: [7] },
    });
    expect(rows).toEqual([{ lives: 3, seed: 7 }, { lives: 3 }, {}, { lives: 2 }]);
    expect(Object.keys(rows[0])).toEqual(["lives", "seed"]);
  });

  it("keeps a key named __proto__ as data, not as the prototype", () => {
    const columns = JSON.parse('{"__proto__": [{"polluted": true}]}');
    const [row] = infoRows({ keys: [["__proto__"]], key_set: [0], columns });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.hasOwn(row, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("sums a column of differences back into its integers", () => {
    const rows = infoRows({ keys: [["frame", "lives"]], key_set: [0, 0, 0], columns: { frame: { delta: [768, 4, 4] }, lives: [3, 3, 2] } });
    expect(rows).toEqual([
      { frame: 768, lives: 3 },
      { frame: 772, lives: 3 },
      { frame: 776, lives: 2 },
    ]);
    expect(() => infoRows({ keys: [["a"]], key_set: [0], columns: { a: { delta: [0.5] } } })).toThrow("bad difference");
  });

  it("rejects columns that do not add up", () => {
    expect(() => infoRows({ keys: [["a"]], key_set: [0, 0], columns: { a: [1] } })).toThrow('the info column "a" runs out');
    expect(() => infoRows({ keys: [["a"]], key_set: [0], columns: {} })).toThrow('the info column "a" runs out');
    expect(() => infoRows({ keys: [["toString"]], key_set: [0], columns: {} })).toThrow("runs out");
    expect(() => infoRows({ keys: [], key_set: [1], columns: {} })).toThrow("no info key set 1");
    expect(() => infoRows({} as never)).toThrow("infos are not columns");
  });
});

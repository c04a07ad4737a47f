import { describe, expect, it } from "vitest";
import { defaultChoice, EVERY, optionLabel, parseState, request } from "./what-if.ts";

describe("parseState", () => {
  it("reads the kernel's state of the bar", () => {
    const state = { actions: ["LEFT", "RIGHT"], busy: true, done: 1, total: 3, status: "branching" };
    expect(parseState(state)).toEqual(state);
  });

  it("is null when the comparison has no bar", () => {
    expect(parseState(null)).toBeNull();
    expect(parseState(undefined)).toBeNull();
  });

  it("is null without actions to offer: a plain comparison's empty state shows no bar", () => {
    expect(parseState({})).toBeNull();
    expect(parseState({ actions: [], busy: false, done: 0, total: 0, status: "" })).toBeNull();
    expect(parseState({ actions: "LEFT" })).toBeNull();
  });

  it("makes odd values harmless: text as text, counts as numbers", () => {
    expect(parseState({ actions: [1, "<b>x</b>"], busy: "yes", done: "2", total: NaN })).toEqual({
      actions: ["1", "<b>x</b>"],
      busy: false,
      done: 0,
      total: 0,
      status: "",
    });
  });
});

describe("request", () => {
  it("asks for one action by its index at the shared step", () => {
    expect(request(42, "1")).toEqual({ type: "what-if", step: 42, action: 1 });
  });

  it("asks for every other action", () => {
    expect(request(0, EVERY)).toEqual({ type: "what-if", step: 0, action: "every" });
  });
});

describe("optionLabel", () => {
  it("names an action and its index, or the index alone when that is its name", () => {
    expect(optionLabel("LEFT", 0)).toBe("LEFT (0)");
    expect(optionLabel("3", 3)).toBe("3");
    expect(optionLabel("3", 4)).toBe("3 (4)");
  });
});

describe("optionLabel of the action taken", () => {
  it("says which action the episode took at the step, and no other", () => {
    expect(optionLabel("LEFT", 0, 0)).toBe("LEFT (0), taken");
    expect(optionLabel("RIGHT", 1, 0)).toBe("RIGHT (1)");
    expect(optionLabel("3", 3, 3)).toBe("3, taken");
    expect(optionLabel("3", 3, null)).toBe("3");
  });
});

describe("defaultChoice", () => {
  it("moves off the action taken to the next one in the space", () => {
    expect(defaultChoice("0", 0, 2)).toBe("1");
    expect(defaultChoice("1", 1, 2)).toBe("0");
    expect(defaultChoice("6", 6, 7)).toBe("0");
  });

  it("keeps any other choice the user made, every other action included", () => {
    expect(defaultChoice("2", 0, 4)).toBe("2");
    expect(defaultChoice(EVERY, 0, 4)).toBe(EVERY);
  });

  it("keeps the choice where no action was taken (the last position) or there is no other", () => {
    expect(defaultChoice("0", null, 4)).toBe("0");
    expect(defaultChoice("0", 0, 1)).toBe("0");
  });
});

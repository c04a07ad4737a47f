import { describe, expect, it } from "vitest";
import { ModelListeners } from "./listeners.ts";
import { FakeModel } from "./test-helpers.ts";

describe("ModelListeners", () => {
  it("calls each callback on its event only", () => {
    const model = new FakeModel();
    const listeners = new ModelListeners(model);
    const calls: string[] = [];
    listeners.on("change:step", () => calls.push("step"));
    listeners.on("change:title", () => calls.push("title"));
    model.set("step", 3);
    model.set("step", 4);
    model.set("title", "x");
    expect(calls).toEqual(["step", "step", "title"]);
  });

  it("takes every callback off the model on dispose, and leaves others on", () => {
    const model = new FakeModel();
    const listeners = new ModelListeners(model);
    const calls: string[] = [];
    listeners.on("change:step", () => calls.push("a"));
    listeners.on("change:step", () => calls.push("b"));
    listeners.on("change:title", () => calls.push("title"));
    model.on("change:step", () => calls.push("other"));
    expect([model.listeners("change:step"), model.listeners("change:title")]).toEqual([3, 1]);
    listeners.dispose();
    expect([model.listeners("change:step"), model.listeners("change:title")]).toEqual([1, 0]);
    model.set("step", 1);
    model.set("title", "x");
    expect(calls).toEqual(["other"]);
  });
});

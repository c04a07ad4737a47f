import { describe, expect, it } from "vitest";
import { DISCONNECTED_CLASS, isSavedCopy } from "./saved-copy.ts";
import { FakeModel } from "./test-helpers.ts";

/** An element inside (or outside) a view's element that ipywidgets marked disconnected. */
function element(insideDisconnected: boolean): Element {
  const closest = (selector: string) => (insideDisconnected && selector === `.${DISCONNECTED_CLASS}` ? ({} as Element) : null);
  return { closest } as unknown as Element;
}

describe("isSavedCopy", () => {
  it("is a saved copy inside a view ipywidgets marked disconnected (anywidget's proxy has no comm_live)", () => {
    expect(isSavedCopy(new FakeModel(), element(true))).toBe(true);
  });

  it("is a saved copy when the model itself has no live comm (a child widget's model)", () => {
    const model = Object.assign(new FakeModel(), { comm_live: false });
    expect(isSavedCopy(model, element(false))).toBe(true);
  });

  it("is live with a live comm, and where the host has no ipywidgets models (marimo, a page)", () => {
    expect(isSavedCopy(Object.assign(new FakeModel(), { comm_live: true }), element(false))).toBe(false);
    expect(isSavedCopy(new FakeModel(), element(false))).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { followChoices } from "./checkpoint-choices.ts";
import { LocalModel } from "./local-model.ts";

const model = (state: Record<string, unknown>) => new LocalModel(new Map(Object.entries(state)), () => []);

/** A page of two checkpoints and one seed: episodes of 10 and 4 positions. */
function page() {
  const children = [model({ step: 0, length: 10 }), model({ step: 0, length: 4 })];
  const viewer = model({ training_steps: [1000, 2000], checkpoint: 0, seed: 0, episode: "IPY_MODEL_0", divergence: null, message: "" });
  followChoices(viewer, children, { "0/0": { child: 0, divergence: null }, "1/0": { child: 1, divergence: 2 } });
  return { viewer, children };
}

describe("a page's checkpoint choices", () => {
  it("show the chosen checkpoint's episode at the same step, with its divergence", () => {
    const { viewer, children } = page();
    children[0].set("step", 3);
    viewer.set("checkpoint", 1);
    expect(viewer.get("episode")).toBe("IPY_MODEL_1");
    expect(children[1].get("step")).toBe(3);
    expect(viewer.get("divergence")).toBe(2);
    expect(viewer.get("message")).toBe("");
  });

  it("show a shorter episode's end, say so, and come back to the step on a longer one", () => {
    const { viewer, children } = page();
    children[0].set("step", 8);
    viewer.set("checkpoint", 1);
    expect(children[1].get("step")).toBe(3);
    expect(viewer.get("message")).toBe("t = 8 is past the end of this episode: it ended at t = 3, shown");
    viewer.set("checkpoint", 0);
    expect(children[0].get("step")).toBe(8);
    expect(viewer.get("divergence")).toBe(null);
  });

  it("say when a choice is not in the page and leave the episode shown", () => {
    const { viewer } = page();
    viewer.set("seed", 5);
    expect(viewer.get("episode")).toBe("IPY_MODEL_0");
    expect(viewer.get("message")).toBe("training step 1000, seed 5: not in this page (exported without it)");
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { PanelState, type PanelSpec } from "./state.ts";

const spec = (name: string, version = 1, over: Partial<PanelSpec> = {}): PanelSpec => ({
  name,
  overlay: false,
  precompute: false,
  version,
  ...over,
});

function setup(names = ["q"]) {
  const requests: [number, string[]][] = [];
  const shown: [string, number | undefined][] = [];
  let now = 0;
  const state = new PanelState({
    request: (step, requested) => requests.push([step, requested]),
    show: (name, card) => shown.push([name, card?.step]),
    timeoutMs: 1000,
    now: () => now,
  });
  state.setPanels(names.map((name) => spec(name)));
  /** The kernel's answer for `name` at `step`: a text card unless `kind` says otherwise. */
  const answer = (name: string, step: number, kind = "text", version = 1, buffers: DataView[] = []) =>
    state.receive({ type: "panel", id: 1, name, step, version, kind, text: `${name}@${step}` }, buffers);
  /** The kernel's acknowledgement: the request for `names` at `step` waits behind another call. */
  const queued = (step: number, names: string[]) =>
    state.receive({ type: "panel-queued", id: 1, step, names }, []);
  const advance = (ms: number) => {
    now += ms;
    if (vi.isFakeTimers()) vi.advanceTimersByTime(ms);
  };
  return { state, requests, shown, answer, queued, advance };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("PanelState requests", () => {
  it("asks for every panel of a step in one request", () => {
    const { state, requests } = setup(["q", "saliency"]);
    state.setStep(4);
    expect(requests).toEqual([[4, ["q", "saliency"]]]);
  });

  it("keeps one request in flight per panel while the user moves on", () => {
    const { state, requests } = setup();
    for (const t of [1, 2, 3, 4]) state.setStep(t);
    expect(requests).toEqual([[1, ["q"]]]);
  });

  it("asks for the newest step once the answer for an older one arrives", () => {
    const { state, requests, answer } = setup();
    for (const t of [1, 2, 3, 9]) state.setStep(t);
    answer("q", 1);
    expect(requests).toEqual([
      [1, ["q"]],
      [9, ["q"]],
    ]);
  });

  it("asks again for the current step after a skipped answer", () => {
    const { state, requests, answer } = setup();
    state.setStep(2);
    answer("q", 2, "skipped");
    expect(requests).toEqual([
      [2, ["q"]],
      [2, ["q"]],
    ]);
  });

  it("asks for a fast panel without waiting for a slow one", () => {
    const { state, requests, answer } = setup(["slow", "fast"]);
    state.setStep(1);
    answer("fast", 1);
    state.setStep(2);
    expect(requests).toEqual([
      [1, ["slow", "fast"]],
      [2, ["fast"]],
    ]);
  });

  it("replaces a request queued behind a slow call with the newest step", () => {
    vi.useFakeTimers();
    const { state, requests, queued, advance } = setup(["slow", "fast"]);
    state.setStep(1);
    queued(1, ["fast"]); // slow is running; fast waits behind it
    advance(100);
    for (const t of [2, 3]) state.setStep(t);
    expect(requests).toEqual([
      [1, ["slow", "fast"]],
      [2, ["fast"]],
    ]);
  });

  it("re-asks a queued request at most every reaskMs, and then for the step the user is on", () => {
    vi.useFakeTimers();
    const { state, requests, queued, advance } = setup(["slow", "fast"]);
    state.setStep(1);
    queued(1, ["fast"]);
    advance(40);
    for (const t of [2, 3, 4]) state.setStep(t); // too soon after the request: not yet
    expect(requests).toEqual([[1, ["slow", "fast"]]]);
    advance(60); // the timer fires once the 100 ms have passed
    expect(requests).toEqual([
      [1, ["slow", "fast"]],
      [4, ["fast"]],
    ]);
  });

  it("does not re-ask a request the kernel has not queued (it may be running)", () => {
    vi.useFakeTimers();
    const { state, requests, queued, advance } = setup(["slow", "fast"]);
    state.setStep(1);
    queued(1, ["fast"]);
    state.setStep(1); // already asked for the current step
    queued(7, ["slow"]); // an acknowledgement of another step changes nothing
    advance(500);
    state.setStep(2);
    expect(requests).toEqual([
      [1, ["slow", "fast"]],
      [2, ["fast"]],
    ]);
  });

  it("gives up a request that is not answered in time and asks again", () => {
    const { state, requests, advance } = setup();
    state.setStep(1);
    advance(999);
    state.setStep(2);
    advance(1);
    state.setStep(3);
    expect(requests).toEqual([
      [1, ["q"]],
      [3, ["q"]],
    ]);
  });

  it("does not ask for hidden panels, and catches up when one is shown again", () => {
    const { state, requests } = setup(["q", "hidden"]);
    state.setActive("hidden", false);
    state.setStep(5);
    state.setActive("hidden", true);
    expect(requests).toEqual([
      [5, ["q"]],
      [5, ["hidden"]],
    ]);
  });
});

describe("PanelState cards", () => {
  it("shows the answer for the current step as current", () => {
    const { state, shown, answer } = setup();
    state.setStep(3);
    answer("q", 3);
    expect(shown).toEqual([["q", 3]]);
    expect(state.isCurrent("q")).toBe(true);
    expect(state.shown("q")?.meta).toEqual({ text: "q@3" });
  });

  it("shows an older step's answer while waiting, marked as not current", () => {
    const { state, shown, answer } = setup();
    state.setStep(3);
    state.setStep(8);
    answer("q", 3);
    expect(shown).toEqual([["q", 3]]);
    expect(state.isCurrent("q")).toBe(false);
  });

  it("turns a shown card stale when the user moves to another step", () => {
    const { state, answer } = setup();
    state.setStep(3);
    answer("q", 3);
    state.setStep(4);
    expect(state.isCurrent("q")).toBe(false);
    expect(state.shown("q")?.step).toBe(3);
  });

  it("never replaces the current card with an older step's answer", () => {
    const { state, answer } = setup();
    state.setStep(3);
    answer("q", 3);
    answer("q", 1);
    expect(state.shown("q")?.step).toBe(3);
    expect(state.isCurrent("q")).toBe(true);
  });

  it("shows a cached card at once when the user comes back to its step", () => {
    const { state, requests, shown, answer } = setup();
    state.setStep(3);
    answer("q", 3);
    state.setStep(4);
    answer("q", 4);
    state.setStep(3);
    expect(shown.at(-1)).toEqual(["q", 3]);
    expect(state.isCurrent("q")).toBe(true);
    expect(requests.map(([step]) => step)).toEqual([3, 4]);
  });

  it("does not cache skipped answers", () => {
    const { state, shown, answer } = setup();
    state.setStep(2);
    answer("q", 2, "skipped");
    expect(shown).toEqual([]);
    expect(state.shown("q")).toBeUndefined();
  });

  it("copies a card's buffers out of the message", () => {
    const { state, answer } = setup();
    const message = new Uint8Array([9, 1, 2, 3, 9]);
    state.setStep(0);
    answer("q", 0, "bars", 1, [new DataView(message.buffer, 1, 3)]);
    const [buffer] = state.shown("q")!.buffers;
    expect([...buffer]).toEqual([1, 2, 3]);
    expect(buffer.buffer.byteLength).toBe(3);
  });

  it("redoes the cards of a step that changed as the episode grew", () => {
    const { state, requests, answer } = setup();
    state.setStep(9);
    answer("q", 9);
    state.forgetStep(9);
    expect(state.isCurrent("q")).toBe(false);
    expect(requests).toEqual([
      [9, ["q"]],
      [9, ["q"]],
    ]);
  });
});

describe("PanelState and a panel past its time limit", () => {
  const noAnswer = (state: PanelState, step: number, id: number | null = 1) =>
    state.receive(
      { type: "panel", id, name: "q", step, version: 1, kind: "error", error: "TimeoutError", message: "no answer after 60 s", retry: true },
      [],
    );

  it("shows the no-answer card but keeps none, so going back asks again", () => {
    const { state, requests, answer } = setup();
    state.setStep(2);
    noAnswer(state, 2);
    expect(state.shown("q")?.meta.message).toBe("no answer after 60 s");
    expect(state.isCurrent("q")).toBe(true); // not asked again at once: the kernel would say the same
    state.setStep(3);
    answer("q", 3);
    state.setStep(2);
    expect(requests.at(-1)).toEqual([2, ["q"]]);
  });

  it("replaces it with the late result the kernel pushes, and asks for the step shown", () => {
    const { state, requests } = setup();
    state.setStep(5);
    noAnswer(state, 5);
    const asked = requests.length;
    state.receive({ type: "panel", name: "q", step: 2, version: 1, kind: "text", text: "late" }, []); // no id: a push
    expect(state.shown("q")?.meta.text).toBe("late");
    expect(state.isCurrent("q")).toBe(false); // dimmed: step 2's, while 5 is shown
    expect(requests.slice(asked)).toEqual([[5, ["q"]]]);
  });
});

describe("PanelState panels", () => {
  it("drops a replaced function's cards and ignores its late answers", () => {
    const { state, requests, shown, answer } = setup();
    state.setStep(2);
    answer("q", 2);
    state.setPanels([spec("q", 2)]);
    expect(shown.at(-1)).toEqual(["q", undefined]);
    expect(requests.at(-1)).toEqual([2, ["q"]]);
    answer("q", 2, "error", 1);
    expect(state.shown("q")).toBeUndefined();
    answer("q", 2, "text", 2);
    expect(state.shown("q")?.version).toBe(2);
  });

  it("keeps the cards of panels whose version did not change", () => {
    const { state, requests, answer } = setup();
    state.setStep(2);
    answer("q", 2);
    state.setPanels([spec("q", 1, { overlay: true }), spec("new", 5)]);
    expect(state.isCurrent("q")).toBe(true);
    expect(state.specs.map((s) => [s.name, s.overlay])).toEqual([
      ["q", true],
      ["new", false],
    ]);
    expect(requests.at(-1)).toEqual([2, ["new"]]);
  });

  it("ignores answers about removed panels", () => {
    const { state, answer } = setup();
    state.setStep(2);
    state.setPanels([]);
    expect(answer("q", 2)).toBe(true);
    expect(state.shown("q")).toBeUndefined();
  });

  it("keeps precompute progress of the current version only", () => {
    const { state } = setup();
    state.receive({ type: "panel-progress", name: "q", version: 1, done: 5, total: 20 }, []);
    state.receive({ type: "panel-progress", name: "q", version: 0, done: 20, total: 20 }, []);
    expect(state.progress("q")).toEqual({ done: 5, total: 20 });
  });

  it("leaves other messages alone", () => {
    const { state } = setup();
    expect(state.receive({ type: "chunks", id: 1, parts: [] }, [])).toBe(false);
    expect(state.receive(null, [])).toBe(false);
  });
});


import { afterEach, describe, expect, it, vi } from "vitest";
import { HOLD_MS, Outbox } from "./outbox.ts";

afterEach(() => {
  vi.useRealTimers();
});

/** An outbox spacing messages 8 ms apart, and the fake-clock times each message left at. */
function setup() {
  vi.useFakeTimers();
  const outbox = new Outbox(8, () => Date.now());
  const sent: [string, number][] = [];
  const start = Date.now();
  const message = (name: string) => () => sent.push([name, Date.now() - start]);
  return { outbox, sent, message };
}

describe("Outbox", () => {
  it("sends a message at once when nothing left recently", () => {
    const { outbox, sent, message } = setup();
    outbox.send(message("save"));
    expect(sent).toEqual([["save", 0]]);
  });

  it("sends an urgent message at once and the others spacingMs apart after it, in order", () => {
    const { outbox, sent, message } = setup();
    outbox.send(message("chunk"), true);
    outbox.send(message("prefetch"));
    outbox.send(message("save"));
    expect(sent).toEqual([["chunk", 0]]);
    vi.advanceTimersByTime(16);
    expect(sent).toEqual([
      ["chunk", 0],
      ["prefetch", 8],
      ["save", 16],
    ]);
  });

  it("holds the others while a paint is pending, until it is released", () => {
    const { outbox, sent, message } = setup();
    outbox.send(message("chunk"), true);
    outbox.hold();
    outbox.send(message("save"));
    outbox.send(message("panel"));
    vi.advanceTimersByTime(30);
    expect(sent).toEqual([["chunk", 0]]);
    outbox.release();
    expect(sent).toEqual([["chunk", 0]]); // not inside the paint's task
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([
      ["chunk", 0],
      ["save", 30],
    ]);
    vi.advanceTimersByTime(8);
    expect(sent.at(-1)).toEqual(["panel", 38]);
  });

  it("holds the others for HOLD_MS at most: a kernel running a cell answers nothing", () => {
    const { outbox, sent, message } = setup();
    outbox.hold();
    outbox.send(message("save"));
    vi.advanceTimersByTime(HOLD_MS - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([["save", HOLD_MS]]);
  });

  it("sends urgent messages while held", () => {
    const { outbox, sent, message } = setup();
    outbox.hold();
    outbox.send(message("chunk"), true);
    expect(sent).toEqual([["chunk", 0]]);
  });

  it("sends an urgent message at once, ahead of those waiting", () => {
    const { outbox, sent, message } = setup();
    outbox.send(message("chunk 1"), true);
    outbox.send(message("prefetch"));
    vi.advanceTimersByTime(3);
    outbox.send(message("chunk 2"), true);
    expect(sent).toEqual([
      ["chunk 1", 0],
      ["chunk 2", 3],
    ]);
    vi.advanceTimersByTime(8);
    expect(sent.at(-1)).toEqual(["prefetch", 11]);
  });

  it("sends everything waiting on flush", () => {
    const { outbox, sent, message } = setup();
    outbox.send(message("chunk"), true);
    outbox.send(message("save"));
    outbox.flush();
    expect(sent.map(([name]) => name)).toEqual(["chunk", "save"]);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(2);
  });

  it("sends what a hold keeps waiting on flush too", () => {
    const { outbox, sent, message } = setup();
    outbox.hold();
    outbox.send(message("save"));
    outbox.flush();
    expect(sent.map(([name]) => name)).toEqual(["save"]);
    vi.advanceTimersByTime(HOLD_MS);
    expect(sent).toHaveLength(1);
  });
});

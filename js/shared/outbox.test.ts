import { afterEach, describe, expect, it, vi } from "vitest";
import { Outbox } from "./outbox.ts";

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

  it("sends the messages that follow an urgent one spacingMs apart, in order", () => {
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
});

import { describe, expect, it } from "vitest";
import { type Parent, TensorBoardHost } from "./host.ts";

/** TensorBoard's side of the channel: the port the guest bootstraps with, spoken to as TensorBoard does. */
class FakeTensorBoard implements Parent {
  port: MessagePort | undefined;
  answer: (message: Record<string, unknown>) => unknown = () => null;
  onReply: (message: Record<string, unknown>) => void = () => {};

  postMessage(message: unknown, _origin: string, transfer: Transferable[]): void {
    expect(message).toBe("experimental.bootstrap");
    this.port = transfer[0] as MessagePort;
    this.port.addEventListener("message", (event: MessageEvent) => {
      const data = JSON.parse(String(event.data)) as Record<string, unknown>;
      if (data.isReply) this.onReply(data);
      else this.port!.postMessage(JSON.stringify({ ...data, payload: this.answer(data), isReply: true }));
    });
    this.port.start();
  }

  sendToGuest(type: string, id: number): void {
    this.port!.postMessage(JSON.stringify({ type, id, payload: null, error: null, isReply: false }));
  }
}

describe("the TensorBoard host channel", () => {
  it("bootstraps with a port, and resolves a request with the host's reply", async () => {
    const tensorboard = new FakeTensorBoard();
    tensorboard.answer = (message) => (message.type === "experimental.GetURLPluginData" ? { run: "dqn", t: "40" } : null);
    const host = new TensorBoardHost(tensorboard);
    expect(await host.send("experimental.GetURLPluginData")).toEqual({ run: "dqn", t: "40" });
    host.close();
  });

  it("calls a listener for the host's message and replies to it with the same id", async () => {
    const tensorboard = new FakeTensorBoard();
    const host = new TensorBoardHost(tensorboard);
    let calls = 0;
    host.listen("experimental.DataReloaded", () => void calls++);
    const reply = new Promise((resolve) => (tensorboard.onReply = resolve));
    tensorboard.sendToGuest("experimental.DataReloaded", 7);
    expect(await reply).toEqual({
      type: "experimental.DataReloaded",
      id: 7,
      payload: null,
      error: null,
      isReply: true,
    });
    expect(calls).toBe(1);
    host.close();
  });
});

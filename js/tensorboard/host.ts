/**
 * Talks to the TensorBoard page around the tab's iframe, over the channel TensorBoard
 * opens for dynamic plugins (its "experimental" plugin API): the guest posts
 * `experimental.bootstrap` to the parent with a MessagePort, then both sides send
 * JSON `{type, id, payload, error, isReply}` over it, each request answered by a reply
 * of the same id. The host answers `experimental.GetURLPluginData` with the URL's
 * `p.agent.*` hash keys (a deep link), and sends `experimental.DataReloaded` when
 * TensorBoard reloads its data.
 *
 * Example:
 *   const host = new TensorBoardHost(window.parent);
 *   const keys = await host.send("experimental.GetURLPluginData");  // {run, episode, t}
 *   host.listen("experimental.DataReloaded", () => refresh());
 */
interface Envelope {
  type: string;
  id: number;
  payload: unknown;
  error: string | null;
  isReply: boolean;
}

type Listener = (payload: unknown) => unknown;

/** The parent window, as far as the channel needs it. */
export interface Parent {
  postMessage(message: unknown, targetOrigin: string, transfer: Transferable[]): void;
}

export class TensorBoardHost {
  private nextId = 0;
  private readonly port: MessagePort;
  private readonly waiting = new Map<number, { resolve: (payload: unknown) => void; reject: (error: Error) => void }>();
  private readonly listeners = new Map<string, Listener>();

  constructor(parent: Parent) {
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.port.addEventListener("message", (event: MessageEvent) => void this.receive(event.data));
    this.port.start();
    parent.postMessage("experimental.bootstrap", "*", [channel.port2]);
  }

  /** Asks the host; resolves with its reply's payload, rejects with its error. */
  send(type: string, payload: unknown = null): Promise<unknown> {
    const id = this.nextId++;
    this.post({ type, id, payload, error: null, isReply: false });
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Answers the host's messages of `type` with what `callback` returns. */
  listen(type: string, callback: Listener): void {
    this.listeners.set(type, callback);
  }

  close(): void {
    this.port.close();
  }

  private async receive(data: unknown): Promise<void> {
    let message: Envelope;
    try {
      message = JSON.parse(String(data)) as Envelope;
    } catch {
      return;
    }
    if (message.isReply) {
      const waiting = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error) waiting?.reject(new Error(String(message.error)));
      else waiting?.resolve(message.payload);
      return;
    }
    let payload: unknown = null;
    let error: string | null = null;
    try {
      payload = (await this.listeners.get(message.type)?.(message.payload)) ?? null;
    } catch (thrown) {
      error = (thrown as Error).message;
    }
    this.post({ type: message.type, id: message.id, payload, error, isReply: true });
  }

  private post(message: Envelope): void {
    this.port.postMessage(JSON.stringify(message));
  }
}

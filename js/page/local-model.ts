/**
 * A widget model with no kernel behind it: state in a map, and messages answered
 * by a function, as a kernel would answer them but a moment later (never inside
 * `send`, as no kernel can). What a view does with the anywidget model it gets, it
 * can do with this one: read and set traits, listen for changes, send messages.
 */
import type { WidgetManager } from "../shared/children.ts";
import type { Model } from "../shared/types.ts";
import type { Reply } from "./answers.ts";

type Listener = (...args: unknown[]) => void;

export class LocalModel implements Model {
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly state: Map<string, unknown>,
    private readonly respond: (content: unknown) => Reply[] | Promise<Reply[]>,
    /** Finds and shows child widgets, for a widget made of others (the comparison). */
    readonly widget_manager?: WidgetManager,
  ) {}

  get(name: string): unknown {
    return this.state.get(name);
  }

  set(name: string, value: unknown): void {
    if (Object.is(this.state.get(name), value)) return;
    this.state.set(name, value);
    this.emit(`change:${name}`, this, value);
  }

  /** Nothing to save to: the page's state lives and dies with the page. */
  save_changes(): void {}

  on(event: string, callback: Listener): void {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(callback);
  }

  off(event?: string | null, callback?: Listener | null): void {
    for (const [name, callbacks] of this.listeners) {
      if (event != null && name !== event) continue;
      if (callback == null) callbacks.clear();
      else callbacks.delete(callback);
    }
  }

  /**
   * Starts answering at once (a reply fetched over HTTP is on its way while the view
   * goes on building itself), and hands the replies to the listeners a moment later.
   */
  send(content: unknown): void {
    void new Promise<Reply[]>((resolve) => resolve(this.respond(content)))
      .then(
        (replies) => {
          for (const [reply, buffers] of replies) this.emit("msg:custom", reply, buffers);
        },
        (error: Error) => console.error("agent-widget page:", error),
      );
  }

  private emit(event: string, ...args: unknown[]): void {
    for (const callback of [...(this.listeners.get(event) ?? [])]) callback(...args);
  }
}

/**
 * Asks the kernel for a stretch of a long episode's timeline in finer columns than
 * the state's summary holds (agent_widget/viewer/_summary.py `range_reply`): a
 * timeline zoomed in past 2,048 columns gets each column's exact min and max. One
 * request waits at a time; a newer one replaces it, and a reply to a replaced one
 * is dropped.
 *
 * Example:
 *   const ranges = new RangeRequests(model, outbox);
 *   const columns = await ranges.fetch(40_000, 41_000, 800);  // undefined if replaced or refused
 */
import { parseSummary, type TimelineColumns } from "./columns.ts";
import type { Outbox } from "./outbox.ts";
import type { Model } from "./types.ts";

interface RangeReply {
  type: "timeline" | "timeline-error";
  id: number;
  keys?: string[];
  message?: string;
}

export class RangeRequests {
  private nextId = 1;
  private waiting: { id: number; resolve: (columns: TimelineColumns | undefined) => void } | undefined;
  private readonly onMessage = (msg: unknown, buffers?: DataView[]) => this.receive(msg as RangeReply, buffers ?? []);

  constructor(
    private readonly model: Model,
    private readonly outbox: Outbox,
  ) {
    model.on("msg:custom", this.onMessage);
  }

  /** The columns of positions `from .. to - 1`, `columns` of them; undefined when replaced or refused. */
  fetch(from: number, to: number, columns: number): Promise<TimelineColumns | undefined> {
    this.waiting?.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting = { id, resolve };
      this.outbox.send(() => this.model.send({ type: "timeline", id, start: from, stop: to, columns }));
    });
  }

  dispose(): void {
    this.model.off("msg:custom", this.onMessage);
    this.waiting?.resolve(undefined);
    this.waiting = undefined;
  }

  private receive(reply: RangeReply, buffers: DataView[]): void {
    if (reply?.type !== "timeline" && reply?.type !== "timeline-error") return;
    const waiting = this.waiting;
    if (waiting === undefined || reply.id !== waiting.id) return;
    this.waiting = undefined;
    if (reply.type === "timeline-error" || !Array.isArray(reply.keys) || reply.keys.length !== buffers.length) {
      console.warn("agent-widget: the kernel did not send the timeline's range:", reply.message ?? "a malformed reply");
      waiting.resolve(undefined);
      return;
    }
    waiting.resolve(parseSummary(Object.fromEntries(reply.keys.map((key, i) => [key, buffers[i]]))));
  }
}

/**
 * Chunk requests over anywidget custom messages, keyed by id.
 *
 * One message asks for several chunks; the reply's buffers are the part
 * payloads in order, then its index: zlib-compressed JSON with the parts' headers
 * and the readout data of the chunks' positions (inflated here at once, with
 * fflate: the browser's `DecompressionStream` is asynchronous only, and a reply
 * must be whole when it settles its chunks). A chunk already in flight is never
 * asked for twice, and replies that arrive after a timeout or after `forget` are
 * dropped, so stale frames (e.g. of a chunk that grew since) never reach the cache.
 *
 * While the episode grows the kernel also pushes its newest chunks unasked (it
 * cannot answer requests while a cell runs). A pushed chunk that is in flight
 * settles its request (whose own reply is then ignored); any other goes to `onPush`.
 *
 * A paint's request names the position it waits for; for a big chunk the kernel
 * sends that frame alone first (agent_widget/viewer/_transport.py `frame_preview`),
 * handed to `onFrame` while its chunk is still wanted.
 */
import { strFromU8, unzlibSync } from "fflate";
import { type InfoColumns, infoRows } from "./info-columns.ts";
import { LinkEstimate } from "./link.ts";
import { Outbox } from "../shared/outbox.ts";
import type { AgentStep, ChunkData, EncodedPart, Encoding, Model, PartHeader, StepMeta, StepValues } from "../shared/types.ts";

interface Pending {
  id: number;
  resolve: (data: ChunkData) => void;
  reject: (error: Error) => void;
  promise: Promise<ChunkData>;
}

interface ChunkReply {
  type: "chunks";
  /** The request's id; `null` in a push. */
  id: number | null;
  /** Sent unasked by a growing episode. */
  push?: boolean;
}

/**
 * A reply's last buffer (agent_widget/viewer/_transport.py `reply_index`): the chunks and how
 * many positions each holds, the headers of the payload buffers, and the infos (and,
 * for actions the `actions` series cannot show, their texts) of those positions,
 * chunk after chunk.
 */
interface ReplyIndex {
  chunks: number[];
  counts: number[];
  parts: PartHeader[];
  infos: InfoColumns;
  actions?: string[];
  /** A long episode's readout values, one per position (its state holds no series). */
  values?: ReplyValues;
  /** A multi-agent episode's step per agent, one per position. */
  agents?: AgentStep[];
}

interface ReplyValues {
  steps: number;
  /** Numbers; non-finite ones as "NaN", "Infinity", "-Infinity"; null at the last position. */
  reward: (number | string | null)[];
  return: number[];
  terminated: (boolean | null)[];
  truncated: (boolean | null)[];
  action?: (number | string | null)[];
}

/** The frame a paint waits for, ahead of its chunk; its buffers are the payload, then the chunk's index without parts. */
interface FrameReply {
  type: "frame";
  id: number;
  part: PartHeader;
}

interface ErrorReply {
  type: "error";
  id: number;
  message: string;
}

export interface TransportOptions {
  /** Positions per chunk, to group the reply's per-position meta by chunk. */
  chunkSize: () => number;
  /** A request not answered within this is given up (the chunk may be asked for again). */
  timeoutMs?: number;
  /** A pushed chunk nobody is waiting for. */
  onPush?: (data: ChunkData) => void;
  /** A push that could not be read. */
  onPushError?: (error: Error) => void;
  /** Paces the requests with the view's other messages; by default each is sent at once. */
  outbox?: Outbox;
  /** A one-frame part sent ahead of the chunk that holds it, which is still wanted, and the chunk's readout data. */
  onFrame?: (part: EncodedPart, steps: Map<number, StepMeta>) => void;
}

export class ChunkTransport {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();
  /** When each request in flight left, to time its reply. */
  private readonly sentAt = new Map<number, number>();
  /** The link's round trip and throughput, from the replies' timings. */
  readonly link = new LinkEstimate();
  private readonly onMessage = (msg: unknown, buffers?: DataView[]) => this.receive(msg, buffers ?? []);
  private readonly outbox: Outbox;

  constructor(
    private readonly model: Model,
    private readonly options: TransportOptions,
  ) {
    this.outbox = options.outbox ?? new Outbox(0);
    model.on("msg:custom", this.onMessage);
  }

  /** Whether chunk `k` has been asked for and not yet answered. */
  isPending(k: number): boolean {
    return this.pending.has(k);
  }

  /**
   * Asks for `chunks` in one message (leaving out those already in flight) and
   * returns one promise per requested chunk, in the same order. `urgent`: a paint
   * waits for the reply, so the request leaves ahead of the view's other messages;
   * `frame`: the position it waits for, in the first chunk, which the kernel may send first.
   */
  fetch(chunks: readonly number[], urgent = false, frame?: number): Promise<ChunkData>[] {
    const fresh = [...new Set(chunks)].filter((k) => !this.pending.has(k));
    if (fresh.length > 0) {
      const id = this.nextId++;
      for (const k of fresh) this.pending.set(k, deferred(id));
      this.timers.set(
        id,
        setTimeout(() => this.fail(id, new TimeoutError(`chunk request ${id} timed out`)), this.options.timeoutMs ?? 20_000),
      );
      // A request settled or forgotten before its turn came is not sent.
      const wanted = () => fresh.some((k) => this.pending.get(k)?.id === id);
      const send = () => {
        if (!wanted()) return;
        this.sentAt.set(id, performance.now());
        const first = frame !== undefined && fresh[0] === chunks[0] ? { frame } : {};
        this.model.send({ type: "chunks", id, chunks: fresh, ...first });
      };
      this.outbox.send(send, urgent);
    }
    return chunks.map((k) => this.pending.get(k)!.promise);
  }

  /** The chunks of a reply that came another way: the widget's state carries the first ones. */
  parse(buffers: DataView[]): Map<number, ChunkData> {
    return parseReply({ type: "chunks", id: null, push: true }, buffers, this.options.chunkSize());
  }

  /** Drops interest in chunk `k`: its in-flight reply will be ignored and its promise rejects. */
  forget(k: number): void {
    const entry = this.pending.get(k);
    if (entry === undefined) return;
    this.pending.delete(k);
    entry.reject(new StaleError(`chunk ${k} changed while it was requested`));
  }

  /** `forget` for every chunk in flight. */
  forgetAll(): void {
    for (const k of [...this.pending.keys()]) this.forget(k);
  }

  dispose(): void {
    this.model.off("msg:custom", this.onMessage);
    for (const id of [...this.timers.keys()]) this.fail(id, new StaleError("the view was closed"));
  }

  private receive(msg: unknown, buffers: DataView[]): void {
    const reply = msg as ChunkReply | FrameReply | ErrorReply | null;
    if (reply === null || typeof reply !== "object") return;
    if (reply.type === "chunks" && reply.push === true) {
      this.receivePush(reply, buffers);
      return;
    }
    if (reply.id === null || !this.timers.has(reply.id)) return;
    if (reply.type === "frame") {
      this.receiveFrame(reply, buffers);
    } else if (reply.type === "error") {
      this.fail(reply.id, new Error(reply.message));
    } else if (reply.type === "chunks") {
      const sent = this.sentAt.get(reply.id);
      if (sent !== undefined) this.link.record(performance.now() - sent, buffers.reduce((n, b) => n + b.byteLength, 0));
      try {
        this.settle(reply.id, parseReply(reply, buffers, this.options.chunkSize()));
      } catch (error) {
        this.fail(reply.id, error as Error);
      }
    }
  }

  /**
   * Hands on a frame sent ahead of its chunk, with the readout data of the chunk's
   * positions, if that chunk is still wanted from this request. One that cannot be
   * read is dropped: the chunk's own reply follows.
   */
  private receiveFrame(reply: FrameReply, buffers: DataView[]): void {
    const header = reply.part;
    if (buffers.length !== 2 || typeof header !== "object" || header === null) return;
    if (this.pending.get(header.chunk)?.id !== reply.id) return;
    let steps: Map<number, StepMeta> | undefined;
    try {
      steps = parseReply({ type: "chunks", id: reply.id }, buffers.slice(1), this.options.chunkSize()).get(header.chunk)?.steps;
    } catch {
      return;
    }
    this.options.onFrame?.({ ...header, payload: ownBytes(buffers[0]) }, steps ?? new Map());
  }

  private receivePush(push: ChunkReply, buffers: DataView[]): void {
    let chunks: Map<number, ChunkData>;
    try {
      chunks = parseReply(push, buffers, this.options.chunkSize());
    } catch (error) {
      this.options.onPushError?.(error as Error);
      return;
    }
    for (const [k, data] of chunks) {
      const entry = this.pending.get(k);
      if (entry === undefined) {
        this.options.onPush?.(data);
        continue;
      }
      // The push is what the request would have brought, as the kernel is now.
      this.pending.delete(k);
      entry.resolve(data);
      if (![...this.pending.values()].some((other) => other.id === entry.id)) this.clearTimer(entry.id);
    }
  }

  private settle(id: number, chunks: Map<number, ChunkData>): void {
    this.clearTimer(id);
    for (const [k, entry] of this.pending) {
      if (entry.id !== id) continue;
      this.pending.delete(k);
      entry.resolve(chunks.get(k) ?? { chunk: k, parts: [], steps: new Map(), bytes: 0 });
    }
  }

  private fail(id: number, error: Error): void {
    this.clearTimer(id);
    for (const [k, entry] of this.pending) {
      if (entry.id !== id) continue;
      this.pending.delete(k);
      entry.reject(error);
    }
  }

  private clearTimer(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.sentAt.delete(id);
  }
}

/** Rejection reason for replies that no longer matter; callers need not report it. */
export class StaleError extends Error {}

/**
 * No reply in time, e.g. because the kernel is busy running a cell (it handles
 * widget messages only between cells). The chunk may be asked for again.
 */
export class TimeoutError extends Error {}

/** Groups a reply's parts (with their buffers) and per-position meta by chunk. */
export function parseReply(reply: ChunkReply, buffers: DataView[], chunkSize: number): Map<number, ChunkData> {
  const what = reply.push === true ? "chunk push" : `chunk reply ${reply.id}`;
  const index = replyIndex(buffers.at(-1), what);
  const { parts } = index;
  if (parts.length + 1 !== buffers.length) {
    throw new Error(`${what} has ${parts.length} parts but ${buffers.length} buffers (a payload per part, then the index)`);
  }
  const chunks = new Map<number, ChunkData>();
  const entry = (k: number): ChunkData => {
    let data = chunks.get(k);
    if (data === undefined) chunks.set(k, (data = { chunk: k, parts: [], steps: new Map(), bytes: 0 }));
    return data;
  };
  parts.forEach((header, i) => {
    const payload = ownBytes(buffers[i]);
    const part: EncodedPart = {
      chunk: header.chunk,
      start: header.start,
      count: header.count,
      height: header.height,
      width: header.width,
      encoding: header.encoding as Encoding,
      payload,
    };
    const data = entry(header.chunk);
    data.parts.push(part);
    data.bytes += payload.byteLength;
  });
  const { infos } = index;
  let j = 0;
  index.chunks.forEach((k, i) => {
    const data = entry(k);
    // Rough UTF-16 footprint of the meta, so infos count against the cache budget too.
    data.bytes += 2 * JSON.stringify(infos.slice(j, j + index.counts[i])).length;
    for (let t = k * chunkSize; t < k * chunkSize + index.counts[i]; t++, j++) {
      const meta: StepMeta = { info: infos[j] };
      if (index.actions !== undefined) meta.action = index.actions[j];
      if (index.values !== undefined) meta.values = stepValues(index.values, j);
      if (index.agents !== undefined) meta.agents = index.agents[j];
      data.steps.set(t, meta);
      data.bytes += 2 * (String(t).length + (meta.action?.length ?? 0));
    }
  });
  return chunks;
}

/** The index inflated, parsed and checked, its infos made rows; an Error naming the message when it is not one. */
function replyIndex(buffer: DataView | undefined, what: string): Omit<ReplyIndex, "infos"> & { infos: unknown[] } {
  if (buffer === undefined) throw new Error(`${what} has no buffers (a payload per part, then the index)`);
  let index: ReplyIndex;
  try {
    index = JSON.parse(strFromU8(unzlibSync(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))));
  } catch (error) {
    throw new Error(`${what}: its index cannot be read (${(error as Error).message})`);
  }
  const integers = (values: unknown) => Array.isArray(values) && values.every(Number.isInteger);
  const positions = integers(index?.counts) ? index.counts.reduce((a, b) => a + b, 0) : -1;
  const valid =
    integers(index?.chunks) &&
    index.chunks.length === index.counts.length &&
    Array.isArray(index.parts) &&
    index.infos?.key_set?.length === positions &&
    (index.actions === undefined ||
      (Array.isArray(index.actions) &&
        index.actions.length === positions &&
        index.actions.every((text) => typeof text === "string"))) &&
    (index.values === undefined || describes(index.values, positions)) &&
    (index.agents === undefined || (Array.isArray(index.agents) && index.agents.length === positions && index.agents.every(isAgentStep)));
  if (!valid) throw new Error(`${what}: its index does not describe its chunks`);
  try {
    return { ...index, infos: infoRows(index.infos) };
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}

/** Whether `value` is an `AgentStep`: names, action texts and legal actions as strings, rewards and returns numbers or null. */
function isAgentStep(value: unknown): value is AgentStep {
  const step = value as AgentStep;
  const number = (x: unknown) => x === null || typeof x === "number";
  return (
    typeof step === "object" &&
    step !== null &&
    (step.acting === null || typeof step.acting === "string") &&
    Array.isArray(step.agents) &&
    step.agents.every(
      (row) =>
        Array.isArray(row) &&
        row.length === 5 &&
        typeof row[0] === "string" &&
        typeof row[1] === "string" &&
        number(row[2]) &&
        number(row[3]) &&
        typeof row[4] === "string",
    )
  );
}

/** Whether a reply's `values` hold one value of each kind per position. */
function describes(values: ReplyValues, positions: number): boolean {
  const kinds = [values.reward, values.return, values.terminated, values.truncated, values.action ?? values.return];
  return Number.isInteger(values.steps) && kinds.every((a) => Array.isArray(a) && a.length === positions);
}

/** Position j's readout values; a non-number where a number belongs reads as missing. */
function stepValues(values: ReplyValues, j: number): StepValues {
  return {
    steps: values.steps,
    reward: number(values.reward[j]),
    return: number(values.return[j]) ?? 0,
    terminated: flag(values.terminated[j]),
    truncated: flag(values.truncated[j]),
    action: values.action === undefined ? undefined : number(values.action[j]),
  };
}

/** A number as the kernel sends it: a non-finite one as "NaN", "Infinity" or "-Infinity". */
function number(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && (Number.isFinite(n) || typeof value === "string") ? n : undefined;
}

function flag(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

/**
 * The buffer's bytes, copied out when the view shares a larger buffer: caching a
 * small view must not keep a whole websocket message alive.
 */
function ownBytes(view: DataView): Uint8Array {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return view.byteLength === view.buffer.byteLength ? bytes : bytes.slice();
}

function deferred(id: number): Pending {
  let resolve!: (data: ChunkData) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<ChunkData>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers may drop a promise they no longer need; never report those as unhandled.
  promise.catch(() => {});
  return { id, resolve, reject, promise };
}

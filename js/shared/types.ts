/** Shapes shared by the front-end modules: the widget model and the wire protocol. */

/** The part of an anywidget model the front end uses (anywidget's AFM model). */
export interface Model {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  save_changes(): void;
  on(event: string, callback: (...args: any[]) => void): void;
  off(event?: string | null, callback?: ((...args: any[]) => void) | null): void;
  send(content: unknown, callbacks?: unknown, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
}

export type Encoding = "zlib-runs" | "raw";

/** One run of same-size frames inside a chunk, as the kernel describes it. */
export interface PartHeader {
  chunk: number;
  start: number;
  count: number;
  height: number;
  width: number;
  encoding: Encoding;
}

/** A part with its payload (the message buffer at the same index). */
export interface EncodedPart extends PartHeader {
  payload: Uint8Array;
}

/** What the kernel says about one position besides its frame. */
export interface StepMeta {
  /** Only for actions the `actions` series cannot show (vectors); the readout writes the others. */
  action?: string;
  info: unknown;
  /** A long episode's readout values, which its state's summary does not hold. */
  values?: StepValues;
  /** A multi-agent episode's step per agent (agent_widget/viewer/_agents.py). */
  agents?: AgentStep;
}

/** Who acted at a position of a multi-agent episode, and each agent present there. */
export interface AgentStep {
  /** Whose turn the step was (turn-taking envs); null when every agent present moves. */
  acting: string | null;
  /**
   * Per agent present: its name, its action as text ("" for none), reward and return (null
   * for none), and the actions its mask allowed ("0 1 4"; "" where the env gives no mask).
   */
  agents: [string, string, number | null, number | null, string][];
}

/** The readout's values of one position of a long episode (agent_widget/viewer/_summary.py `readout_values`). */
export interface StepValues {
  /** The episode's number of actions. */
  steps: number;
  /** Undefined at the last position (no action). */
  reward: number | undefined;
  return: number;
  /** Of the step that ends at this position (the last action's at the last position). */
  terminated: boolean | undefined;
  truncated: boolean | undefined;
  /** A scalar action. */
  action: number | undefined;
}

/** Everything received for one chunk: its frame parts and the meta of its positions. */
export interface ChunkData {
  chunk: number;
  parts: EncodedPart[];
  steps: Map<number, StepMeta>;
  /** Bytes this chunk holds in memory (payloads plus an estimate for the meta). */
  bytes: number;
}

/** A decoded frame, ready for `putImageData` (RGBA, alpha 255). */
export interface Frame {
  width: number;
  height: number;
  rgba: Uint8ClampedArray;
}

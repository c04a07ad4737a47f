/**
 * The kernel's side of the conversation, answered from a page's embedded data
 * (agent_widget/viewer/_page.py): every frame chunk's reply and every panel's card
 * at every step, made beforehand. Buffers are base64 in the data and decoded when
 * asked for, so opening a long episode decodes only the chunks the view needs.
 */

/** One panel's card at one step: the message's fields and its buffers. */
export type EmbeddedCard = [meta: Record<string, unknown>, buffers: string[]];

/** One viewer of a page: its traits and what its kernel would have sent. */
export interface EpisodeData {
  widget: "episode";
  /** The viewer's traits as the kernel synced them; bytes as `{base64}`. */
  state: Record<string, unknown>;
  /** chunks[k]: the buffers of chunk k's reply (its parts, then its index). */
  chunks: string[][];
  /** cards[name][t]: panel `name`'s card at position t. */
  cards: Record<string, EmbeddedCard[]>;
}

/** A comparison of viewers: its traits (`viewers` names its children by index). */
export interface CompareData {
  widget: "compare";
  state: Record<string, unknown>;
  children: EpisodeData[];
}

export type PageData = { format: "agent-widget.page"; version: number } & (EpisodeData | CompareData);

export type Reply = [content: Record<string, unknown>, buffers: DataView[]];

/** The page's data, checked enough that a wrong file says so instead of failing later. */
export function readPageData(json: string): PageData {
  const data = JSON.parse(json) as PageData;
  if (data?.format !== "agent-widget.page" || data.version !== 1) {
    throw new Error(`not an agent-widget page (format ${String(data?.format)} ${String(data?.version)})`);
  }
  return data;
}

/** The state a view reads: the traits, with bytes decoded as the kernel's arrive. */
export function pageState(state: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(state).map(([name, value]) => [name, decoded(value)]));
}

function decoded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decoded);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0][0] === "base64" && typeof entries[0][1] === "string") {
    return fromBase64(entries[0][1]);
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, decoded(item)]));
}

/**
 * The messages the kernel would send for `content`: each asked-for chunk as a push
 * (the transport settles a chunk in flight with its push, one chunk a message), and
 * one card message per panel asked for.
 */
export function answer(data: EpisodeData, content: unknown): Reply[] {
  const message = content as { type?: unknown; id?: unknown; step?: unknown; chunks?: unknown; names?: unknown };
  if (message?.type === "chunks" && Array.isArray(message.chunks)) {
    return message.chunks
      .filter((k): k is number => Number.isInteger(k) && k >= 0 && k < data.chunks.length)
      .map((k) => [{ type: "chunks", id: null, push: true }, data.chunks[k].map(fromBase64)]);
  }
  if (message?.type === "panel" && typeof message.step === "number") {
    const step = message.step;
    const names = Array.isArray(message.names) ? message.names.map(String) : Object.keys(data.cards);
    return names.map((name): Reply => {
      const card = data.cards[name]?.[step];
      const fields = card === undefined ? { kind: "skipped" } : card[0];
      const buffers = card === undefined ? [] : card[1].map(fromBase64);
      return [{ ...fields, type: "panel", id: message.id, name, step }, buffers];
    });
  }
  return [];
}

export function fromBase64(text: string): DataView {
  const native = (Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (native !== undefined) return viewOf(native(text));
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return viewOf(bytes);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

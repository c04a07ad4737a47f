/**
 * The kernel's side of the conversation, answered from a page's embedded data
 * (agent_widget/viewer/_page.py): every frame chunk's reply and every panel's card
 * at every step, made beforehand. Buffers are base64 in the data and decoded when
 * asked for, so opening a long episode decodes only the chunks the view needs.
 */

/** One panel's card at one step: the message's fields and its buffers. */
export type EmbeddedCard = [meta: Record<string, unknown>, buffers: string[]];

export interface PageData {
  format: "agent-widget.page";
  version: number;
  /** The viewer's traits, as the kernel synced them. */
  state: Record<string, unknown>;
  /** The timeline's series, each base64 of the packed bytes. */
  series: Record<string, string>;
  /** chunks[k]: the buffers of chunk k's reply (its parts, then its index). */
  chunks: string[][];
  /** cards[name][t]: panel `name`'s card at position t. */
  cards: Record<string, EmbeddedCard[]>;
}

export type Reply = [content: Record<string, unknown>, buffers: DataView[]];

/** The page's data, checked enough that a wrong file says so instead of failing later. */
export function readPageData(json: string): PageData {
  const data = JSON.parse(json) as PageData;
  if (data?.format !== "agent-widget.page" || data.version !== 1) {
    throw new Error(`not an agent-widget page (format ${String(data?.format)} ${String(data?.version)})`);
  }
  return data;
}

/** The state a view reads: the traits, with the series decoded as a kernel's bytes are. */
export function pageState(data: PageData): Map<string, unknown> {
  const series = Object.fromEntries(Object.entries(data.series).map(([name, text]) => [name, fromBase64(text)]));
  return new Map<string, unknown>([...Object.entries(data.state), ["series", series]]);
}

/**
 * The messages the kernel would send for `content`: each asked-for chunk as a push
 * (the transport settles a chunk in flight with its push, one chunk a message), and
 * one card message per panel asked for.
 */
export function answer(data: PageData, content: unknown): Reply[] {
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

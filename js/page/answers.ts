/**
 * The kernel's side of the conversation, answered from a page's embedded data
 * (agent_widget/viewer/_page.py): chunk replies and every panel's card, made
 * beforehand, in blocks of consecutive chunks, each in a script element of its own
 * that may still be on its way while the page loads (`BlockSource`). Buffers are
 * base64 and decoded when asked for, so the viewer decodes only what it shows.
 */
import { unzlibSync } from "fflate";

/** One panel's card at one step: the message's fields and its buffers. */
export type EmbeddedCard = [meta: Record<string, unknown>, buffers: string[]];

/** One block: the reply to a request for its chunks, and its positions' cards. */
export interface Block {
  reply: string[];
  /** cards[name][i]: panel `name`'s card at the block's i-th position. */
  cards: Record<string, EmbeddedCard[]>;
}

/** One viewer of a page: its traits, and which chunks each of its blocks holds. */
export interface EpisodeData {
  widget: "episode";
  /** Names its block elements: agent-widget-block-<id>-<index>. */
  id: string;
  /** The viewer's traits as the kernel synced them; bytes as `{zlib}`. */
  state: Record<string, unknown>;
  /** blocks[b] = [first, end): block b holds chunks first .. end - 1. */
  blocks: [number, number][];
}

/** A comparison of viewers: its traits (`viewers` names its children by index). */
export interface CompareData {
  widget: "compare";
  state: Record<string, unknown>;
  children: EpisodeData[];
}

/** A checkpoint viewer: its traits, its episodes, and which one each choice shows. */
export interface CheckpointsData {
  widget: "checkpoints";
  state: Record<string, unknown>;
  children: EpisodeData[];
  /** "<checkpoint index>/<seed>": the child showing that episode, and its divergence. */
  episodes: Record<string, { child: number; divergence: number | null }>;
}

export type PageData = { format: "agent-widget.page"; version: number } & (EpisodeData | CompareData | CheckpointsData);

export type Reply = [content: Record<string, unknown>, buffers: DataView[]];

/** Where a viewer's blocks come from: block `b` once it is there. */
export type BlockSource = (b: number) => Promise<Block>;

/** The page's data, checked enough that a wrong file says so instead of failing later. */
export function readPageData(json: string): PageData {
  const data = JSON.parse(json) as PageData;
  if (data?.format !== "agent-widget.page" || data.version !== 1) {
    throw new Error(`not an agent-widget page (format ${String(data?.format)} ${String(data?.version)})`);
  }
  return data;
}

/** The state a view reads: the traits, with bytes inflated as the kernel's arrive. */
export function pageState(state: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(state).map(([name, value]) => [name, decoded(value)]));
}

function decoded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decoded);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  if (entries.length === 1 && entries[0][0] === "zlib" && typeof entries[0][1] === "string") {
    return viewOf(unzlibSync(new Uint8Array(fromBase64(entries[0][1]).buffer)));
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, decoded(item)]));
}

/**
 * The messages the kernel would send for `content`: each block holding an asked-for
 * chunk as one push (the transport settles the chunks in flight with it, and caches
 * the others), and one card message per panel asked for.
 */
export async function answer(data: EpisodeData, blocks: BlockSource, content: unknown): Promise<Reply[]> {
  const chunkSize = Number(data.state.chunk_size) || 16;
  const blockOf = (k: number) => data.blocks.findIndex(([first, end]) => first <= k && k < end);
  const message = content as { type?: unknown; id?: unknown; step?: unknown; chunks?: unknown; names?: unknown };
  if (message?.type === "chunks" && Array.isArray(message.chunks)) {
    const wanted = new Set(message.chunks.filter((k) => Number.isInteger(k)).map(blockOf).filter((b) => b >= 0));
    const replies = await Promise.all([...wanted].map(blocks));
    return replies.map((block): Reply => [{ type: "chunks", id: null, push: true }, block.reply.map(fromBase64)]);
  }
  if (message?.type === "panel" && Number.isInteger(message.step)) {
    const step = message.step as number;
    const b = blockOf(Math.floor(step / chunkSize));
    const block = b >= 0 ? await blocks(b) : { reply: [], cards: {} };
    const names = Array.isArray(message.names) ? message.names.map(String) : Object.keys(block.cards);
    return names.map((name): Reply => {
      const card = block.cards[name]?.[step - data.blocks[b][0] * chunkSize];
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

/**
 * Which chunks to ask the kernel for, and which frames to decode, next.
 *
 * Pure planning, no I/O: a round trip costs ~40 ms, so the chunks around the
 * playhead (mostly ahead, in the direction of travel) are requested before they
 * are needed; when the whole episode fits the cache budget, the rest is filled
 * in the background, one small request at a time.
 */

export type Direction = 1 | -1;

export interface Window {
  /** Current position and the direction the playhead last moved in. */
  step: number;
  direction: Direction;
  length: number;
  chunkSize: number;
  /** Chunks to hold ahead of (in the direction of travel) and behind the current one. */
  ahead: number;
  behind: number;
  /** Looping playback: ahead of the last chunk comes the first. */
  wrap: boolean;
}

export const chunkOf = (t: number, chunkSize: number): number => Math.floor(t / chunkSize);
export const numChunks = (length: number, chunkSize: number): number => Math.ceil(length / chunkSize);

/** Chunks of the window not yet `present` (cached or in flight): current first, then ahead, then behind. */
export function missingInWindow(w: Window, present: (k: number) => boolean): number[] {
  const count = numChunks(w.length, w.chunkSize);
  const current = chunkOf(w.step, w.chunkSize);
  const wanted = [current];
  for (let i = 1; i <= w.ahead; i++) wanted.push(current + i * w.direction);
  for (let i = 1; i <= w.behind; i++) wanted.push(current - i * w.direction);
  const inRange = w.wrap ? wanted.map((k) => mod(k, count)) : wanted.filter((k) => k >= 0 && k < count);
  return [...new Set(inRange)].filter((k) => !present(k));
}

/**
 * How many chunks to keep ahead: enough for ~1 s of playback at `fps` (at least
 * 2), but never a window so large that it would evict itself from the cache.
 */
export function aheadChunks(fps: number, chunkSize: number, chunkBytes: number, budget: number): number {
  const forPlayback = Math.max(2, Math.ceil(fps / chunkSize) + 1);
  if (chunkBytes <= 0) return forPlayback;
  const affordable = Math.floor(budget / 2 / chunkBytes) - 2; // minus current and one behind
  return Math.max(1, Math.min(forPlayback, affordable));
}

/** Splits chunks into requests of at most `perRequest`, the current chunk alone first so it arrives soonest. */
export function toRequests(chunks: readonly number[], current: number, perRequest: number): number[][] {
  const requests: number[][] = [];
  let rest = chunks;
  if (rest[0] === current) {
    requests.push([current]);
    rest = rest.slice(1);
  }
  for (let i = 0; i < rest.length; i += perRequest) requests.push(rest.slice(i, i + perRequest));
  return requests;
}

/** Chunks per request so one reply stays near `targetBytes` (1..maxCount). */
export function chunksPerRequest(chunkBytes: number, targetBytes: number, maxCount: number): number {
  if (chunkBytes <= 0) return 1;
  return Math.max(1, Math.min(maxCount, Math.floor(targetBytes / chunkBytes)));
}

/** Whether the whole episode, at the average chunk size seen so far, fits in 90% of the budget. */
export function fitsBudget(chunkBytes: number, chunks: number, budget: number): boolean {
  return chunkBytes > 0 && chunkBytes * chunks <= 0.9 * budget;
}

/**
 * The next background batch: the missing chunks nearest the current one,
 * alternating ahead and behind (ahead first), at most `max`.
 */
export function backgroundBatch(
  current: number,
  direction: Direction,
  chunks: number,
  present: (k: number) => boolean,
  max: number,
): number[] {
  const batch: number[] = [];
  for (let d = 0; batch.length < max && (current + d < chunks || current - d >= 0); d++) {
    for (const k of d === 0 ? [current] : [current + d * direction, current - d * direction]) {
      if (k >= 0 && k < chunks && !present(k) && batch.length < max) batch.push(k);
    }
  }
  return batch;
}

/**
 * Positions to have decoded, most urgent first: the current one, `ahead` in the
 * direction of travel, then `behind` the other way (for stepping back).
 */
export function decodePlan(
  step: number,
  direction: Direction,
  length: number,
  ahead: number,
  behind: number,
  wrap: boolean,
): number[] {
  const plan = [step];
  for (let i = 1; i <= ahead; i++) plan.push(step + i * direction);
  for (let i = 1; i <= behind; i++) plan.push(step - i * direction);
  const inRange = wrap ? plan.map((t) => mod(t, length)) : plan.filter((t) => t >= 0 && t < length);
  return [...new Set(inRange)];
}

const mod = (a: number, n: number): number => ((a % n) + n) % n;

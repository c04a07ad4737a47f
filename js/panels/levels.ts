/**
 * A 2-D map's levels coloured into RGBA pixels, for heatmap cards and overlays.
 *
 * The kernel sends a map at its own size as one byte per cell, zlib-compressed
 * (agent_widget/panels/_heatmap.py): level 0 is "no value" (a non-finite cell, drawn
 * transparent) and levels 1..255 span the finite values from min to max; level L
 * takes entry round((L - 1) * 255 / 254) of the 256-colour table that comes with
 * it, so min and max get the table's first and last colours. Colouring here
 * rather than in the kernel makes the map 4x smaller than RGBA, spares the
 * kernel a PNG encode and the page an image decode.
 *
 * Pure (no DOM): the card view puts the pixels in an ImageData and scales them.
 */
import { inflateBounded } from "../shared/inflate.ts";

const LEVELS = 256;

/** The 2-D map's cells, one level each, row-major; throws when they are not width x height. */
export function inflateLevels(payload: Uint8Array, width: number, height: number): Uint8Array {
  const levels = inflateBounded(payload, width * height);
  if (levels.length !== width * height) {
    throw new Error(`the map holds ${levels.length} levels, expected ${width}x${height}`);
  }
  return levels;
}

/**
 * The RGBA of each level (256 x 4 bytes). In a card a value is opaque; over the
 * frame its alpha follows the value, so low values let the frame show through.
 */
export function levelColours(lut: Uint8Array, overlay: boolean): Uint8Array {
  if (lut.length < 3 * LEVELS) throw new Error(`the colour table has ${lut.length} bytes, expected ${3 * LEVELS}`);
  const colours = new Uint8Array(4 * LEVELS); // level 0 stays transparent black
  for (let level = 1; level < LEVELS; level++) {
    const entry = Math.round(((level - 1) * (LEVELS - 1)) / (LEVELS - 2));
    colours.set(lut.subarray(3 * entry, 3 * entry + 3), 4 * level);
    colours[4 * level + 3] = overlay ? entry : 255;
  }
  return colours;
}

/** The map's pixels: each level's colour from `colours` (see `levelColours`). */
export function colourLevels(levels: Uint8Array, colours: Uint8Array): Uint8ClampedArray<ArrayBuffer> {
  const pixels = new Uint8ClampedArray(4 * levels.length);
  // One 32-bit copy per cell; both views share the bytes' order, whatever the platform's.
  const out = new Uint32Array(pixels.buffer);
  const table = new Uint32Array(colours.buffer, colours.byteOffset, LEVELS);
  for (let i = 0; i < levels.length; i++) out[i] = table[levels[i]];
  return pixels;
}

/**
 * Whether a `from` picture scaled to `to` is smoothed: not when `to` is a whole
 * multiple of it in both directions (a grid world's cells stay crisp blocks).
 */
export function smoothScaling(from: { width: number; height: number }, to: { width: number; height: number }): boolean {
  return to.width % from.width !== 0 || to.height % from.height !== 0;
}

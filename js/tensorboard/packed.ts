/**
 * Reads the plugin's bodies (agent_widget/tensorboard/_packed.py): a 4-byte
 * little-endian length, that much UTF-8 JSON, then the buffers one after another.
 * Each `{"buffer": i, "size": n}` in the JSON becomes a DataView of buffer i's bytes
 * (no copy), as anywidget hands a kernel's buffers to a view.
 *
 * Example:
 *   const { replies } = unpacked(await response.arrayBuffer()) as { replies: [object, DataView[]][] };
 */
type Reference = { buffer: number; size: number };

export function unpacked(body: ArrayBuffer): unknown {
  if (body.byteLength < 4) throw new Error(`a packed body of ${body.byteLength} bytes`);
  const length = new DataView(body).getUint32(0, true);
  if (4 + length > body.byteLength) throw new Error(`a packed body whose JSON (${length} bytes) passes its end`);
  const head = JSON.parse(new TextDecoder().decode(new Uint8Array(body, 4, length))) as unknown;
  const sizes: number[] = [];
  visit(head, (ref) => void (sizes[ref.buffer] = ref.size));
  const starts: number[] = [];
  let offset = 4 + length;
  for (let i = 0; i < sizes.length; i++) {
    if (sizes[i] === undefined) throw new Error(`the body's JSON names no buffer ${i}`);
    starts.push(offset);
    offset += sizes[i];
  }
  if (offset !== body.byteLength) throw new Error(`a packed body of ${body.byteLength} bytes holds ${offset}`);
  return visit(head, (ref) => new DataView(body, starts[ref.buffer], ref.size));
}

/** `value` with each buffer reference replaced by what `buffer` makes of it. */
function visit(value: unknown, buffer: (ref: Reference) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => visit(item, buffer));
  if (value === null || typeof value !== "object") return value;
  if (isReference(value)) return buffer(value);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item, buffer)]));
}

function isReference(value: object): value is Reference {
  const { buffer, size } = value as Partial<Reference>;
  return Object.keys(value).length === 2 && Number.isInteger(buffer) && buffer! >= 0 && Number.isInteger(size) && size! >= 0;
}

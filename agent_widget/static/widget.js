// js/canvas.ts
var AUTO_HEIGHT = 400;
var PLACEHOLDER = { width: 480, height: 270 };
function displaySize(width, height, options) {
  let factor;
  if (options.height > 0) factor = options.height / height;
  else if (options.scale > 0) factor = options.scale;
  else factor = Math.max(1, Math.round(AUTO_HEIGHT / height));
  return { width: width * factor, height: height * factor };
}
var FrameCanvas = class {
  element;
  context;
  size = { height: 0, scale: 0 };
  constructor(parent) {
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = "aw-frame";
    this.context = this.element.getContext("2d");
    this.resize(PLACEHOLDER.width, PLACEHOLDER.height);
  }
  /** Sets the `height`/`scale` traits (0 = auto) and re-applies the CSS size. */
  setSize(height, scale) {
    this.size = { height, scale };
    this.applyCss();
  }
  paint(frame) {
    this.resize(frame.width, frame.height);
    this.context.putImageData(new ImageData(frame.rgba, frame.width, frame.height), 0, 0);
  }
  /** Draws a message instead of a frame (no frames in this episode, or loading). */
  placeholder(text2) {
    this.resize(PLACEHOLDER.width, PLACEHOLDER.height);
    const c = this.context;
    c.fillStyle = "#eee";
    c.fillRect(0, 0, PLACEHOLDER.width, PLACEHOLDER.height);
    c.fillStyle = "#666";
    c.font = "16px sans-serif";
    c.textAlign = "center";
    c.textBaseline = "middle";
    c.fillText(text2, PLACEHOLDER.width / 2, PLACEHOLDER.height / 2);
  }
  resize(width, height) {
    if (this.element.width === width && this.element.height === height) return;
    this.element.width = width;
    this.element.height = height;
    this.applyCss();
  }
  applyCss() {
    const css = displaySize(this.element.width, this.element.height, this.size);
    this.element.style.width = `${css.width}px`;
  }
};

// js/dom.ts
function el(tag, className) {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}
function button(className, text2, title) {
  const b = el("button", className);
  b.type = "button";
  b.textContent = text2;
  b.title = title;
  return b;
}
function input(className, type) {
  const i2 = el("input", className);
  i2.type = type;
  return i2;
}

// js/controls.ts
function keyAction(key2, shiftKey) {
  switch (key2) {
    case "ArrowLeft":
      return { kind: "step", delta: shiftKey ? -10 : -1 };
    case "ArrowRight":
      return { kind: "step", delta: shiftKey ? 10 : 1 };
    case " ":
      return { kind: "toggle" };
    case "Home":
      return { kind: "seek", to: "first" };
    case "End":
      return { kind: "seek", to: "last" };
    default:
      return null;
  }
}
var Controls = class {
  constructor(parent, root, handlers) {
    this.root = root;
    this.handlers = handlers;
    this.element = parent.appendChild(el("div", "aw-controls"));
    const prev = this.element.appendChild(button("aw-prev", "\u2039 Prev", "Previous step (\u2190)"));
    this.play = this.element.appendChild(button("aw-play", "Play", "Play / pause (space)"));
    const next = this.element.appendChild(button("aw-next", "Next \u203A", "Next step (\u2192)"));
    this.slider = this.element.appendChild(input("aw-slider", "range"));
    this.slider.min = "0";
    this.slider.step = "1";
    const fpsLabel = this.element.appendChild(el("label", "aw-fps-label"));
    this.fps = fpsLabel.appendChild(input("aw-fps", "number"));
    Object.assign(this.fps, { min: "1", max: "240", step: "any", title: "Playback speed (frames per second)" });
    fpsLabel.append(" fps");
    const loopLabel = this.element.appendChild(el("label", "aw-loop-label"));
    this.loop = loopLabel.appendChild(input("aw-loop", "checkbox"));
    loopLabel.append(" loop");
    prev.addEventListener("click", () => handlers.stepBy(-1));
    next.addEventListener("click", () => handlers.stepBy(1));
    this.play.addEventListener("click", () => handlers.togglePlay());
    this.slider.addEventListener("input", () => handlers.seek(this.slider.valueAsNumber));
    this.fps.addEventListener("change", () => {
      const fps = this.fps.valueAsNumber;
      if (Number.isFinite(fps) && fps > 0) handlers.setFps(fps);
    });
    this.loop.addEventListener("change", () => handlers.setLoop(this.loop.checked));
    root.addEventListener("keydown", this.onKey);
  }
  root;
  handlers;
  element;
  slider;
  play;
  fps;
  loop;
  length = 0;
  setLength(length) {
    this.length = length;
    this.slider.max = String(Math.max(0, length - 1));
    this.slider.disabled = length <= 1;
  }
  setStep(t) {
    this.slider.value = String(t);
  }
  setPlaying(playing) {
    this.play.textContent = playing ? "Pause" : "Play";
  }
  setFps(fps) {
    if (document.activeElement !== this.fps) this.fps.value = String(fps);
  }
  setLoop(loop) {
    this.loop.checked = loop;
  }
  dispose() {
    this.root.removeEventListener("keydown", this.onKey);
  }
  onKey = (event) => {
    event.stopPropagation();
    const target = event.target;
    if (target.tagName === "INPUT" && target !== this.slider) return;
    if (target.tagName === "BUTTON" && (event.key === " " || event.key === "Enter")) return;
    const action = keyAction(event.key, event.shiftKey);
    if (action === null || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    if (action.kind === "step") this.handlers.stepBy(action.delta);
    else if (action.kind === "toggle") this.handlers.togglePlay();
    else this.handlers.seek(action.to === "first" ? 0 : this.length - 1);
  };
};

// js/codec.ts
var SLICE_OUTPUT_BYTES = 128 * 1024;
var StreamInflater = class {
  constructor(payload, out) {
    this.payload = payload;
    this.out = out;
    const stream = new DecompressionStream("deflate");
    void this.write(stream.writable.getWriter());
    void this.read(stream.readable.getReader());
  }
  payload;
  out;
  filled = 0;
  demand = 0;
  urgent = false;
  error;
  wake;
  waiters = [];
  /** Bytes of `out` inflated so far. */
  get bytes() {
    return this.filled;
  }
  /**
   * Resolves once `out[0, target)` is inflated. `urgent` (someone is waiting to
   * paint) inflates without yielding to the browser between slices.
   */
  fill(target, urgent) {
    if (this.error !== void 0) return Promise.reject(this.error);
    if (this.filled >= target) return Promise.resolve();
    this.demand = Math.max(this.demand, target);
    this.urgent ||= urgent;
    this.wake?.();
    return new Promise((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }
  async write(writer) {
    const slice = Math.max(256, Math.ceil(this.payload.byteLength * SLICE_OUTPUT_BYTES / Math.max(1, this.out.byteLength)));
    try {
      for (let sent = 0; sent < this.payload.byteLength; sent += slice) {
        while (this.filled >= this.demand) await new Promise((resolve) => this.wake = resolve);
        await writer.write(this.payload.subarray(sent, sent + slice));
        if (!this.urgent) await nextTask();
      }
      await writer.close();
    } catch (error) {
      this.fail(error);
    }
  }
  async read(reader) {
    try {
      for (; ; ) {
        const { done, value } = await reader.read();
        if (done) break;
        if (this.filled + value.byteLength > this.out.byteLength) {
          void reader.cancel();
          throw new Error(`inflated data is larger than the expected ${this.out.byteLength} bytes`);
        }
        this.out.set(value, this.filled);
        this.filled += value.byteLength;
        this.settle();
      }
      if (this.filled !== this.out.byteLength) {
        throw new Error(`inflated ${this.filled} bytes, expected ${this.out.byteLength}`);
      }
    } catch (error) {
      this.fail(error);
    }
  }
  settle() {
    this.waiters = this.waiters.filter((w) => this.filled >= w.target ? (w.resolve(), false) : true);
    if (this.waiters.length === 0) this.urgent = false;
  }
  fail(error) {
    this.error ??= error;
    for (const w of this.waiters) w.reject(this.error);
    this.waiters = [];
  }
};
function undoXor(data, frameBytes, index) {
  const begin = index * frameBytes;
  const prev = begin - frameBytes;
  if (frameBytes % 4 === 0 && data.byteOffset % 4 === 0) {
    const words = new Uint32Array(data.buffer, data.byteOffset, data.byteLength >>> 2);
    const w0 = begin >>> 2;
    const p0 = prev >>> 2;
    for (let j = 0, n = frameBytes >>> 2; j < n; j++) words[w0 + j] ^= words[p0 + j];
    return;
  }
  for (let j = 0; j < frameBytes; j++) data[begin + j] ^= data[prev + j];
}
function rgbToFrame(rgb, offset, width, height, into) {
  const pixels = width * height;
  const rgba = into?.length === pixels * 4 ? into : new Uint8ClampedArray(pixels * 4);
  for (let p = 0, s = offset, d = 0; p < pixels; p++, s += 3, d += 4) {
    rgba[d] = rgb[s];
    rgba[d + 1] = rgb[s + 1];
    rgba[d + 2] = rgb[s + 2];
    rgba[d + 3] = 255;
  }
  return { width, height, rgba };
}
var PartDecoder = class {
  /** Checks the header and payload size; throws an Error naming the part's position when wrong. */
  constructor(part) {
    this.part = part;
    const { start, count, width, height, encoding, payload } = part;
    if (!(count > 0 && width > 0 && height > 0)) {
      throw new Error(`invalid part at position ${start}: ${count} frames of ${width}x${height}`);
    }
    this.frameBytes = width * height * 3;
    const expected = count * this.frameBytes;
    if (encoding === "raw") {
      if (payload.byteLength !== expected) {
        throw new Error(`raw part at position ${start} holds ${payload.byteLength} bytes, expected ${expected}`);
      }
      this.data = payload;
      this.undone = count;
    } else if (encoding === "zlib-xor") {
      this.data = new Uint8Array(expected);
      this.inflater = new StreamInflater(payload, this.data);
      this.undone = 1;
    } else {
      throw new Error(`unknown frame encoding ${JSON.stringify(encoding)} at position ${start}`);
    }
    this.bytes = this.data.byteLength;
  }
  part;
  /** Memory held: the part's inflated (or raw) RGB bytes. */
  bytes;
  frameBytes;
  data;
  inflater;
  /** Frames 0..undone-1 of `data` are plain RGB; later ones are still XOR deltas. */
  undone;
  /** Whether `frame(t)` can run now, without inflating more. */
  ready(t) {
    return this.inflater === void 0 || this.inflater.bytes >= (this.index(t) + 1) * this.frameBytes;
  }
  /** Inflates as far as frame `t`; `urgent` when someone waits to paint it. */
  async load(t, urgent) {
    try {
      await this.inflater?.fill((this.index(t) + 1) * this.frameBytes, urgent);
    } catch (error) {
      throw new Error(`zlib-xor part at position ${this.part.start}: ${error.message}`);
    }
  }
  /** The RGBA frame at absolute position `t` (written into `into` if it fits); it must be `ready`. */
  frame(t, into) {
    const index = this.index(t);
    if (!this.ready(t)) throw new Error(`frame ${t} is not inflated yet`);
    for (; this.undone <= index; this.undone++) undoXor(this.data, this.frameBytes, this.undone);
    return rgbToFrame(this.data, index * this.frameBytes, this.part.width, this.part.height, into);
  }
  index(t) {
    const index = t - this.part.start;
    if (!(index >= 0 && index < this.part.count)) {
      throw new RangeError(`position ${t} is not in the part starting at ${this.part.start}`);
    }
    return index;
  }
};
function nextTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

// js/decoding.ts
var DecodeAhead = class {
  constructor(store, hasChunk, onError) {
    this.store = store;
    this.hasChunk = hasChunk;
    this.onError = onError;
  }
  store;
  hasChunk;
  onError;
  plan = [];
  running = false;
  stopped = false;
  /** Replaces the plan (positions, most urgent first); frames already decoded are skipped. */
  schedule(positions) {
    this.plan = positions.slice();
    if (!this.running && !this.stopped) void this.run();
  }
  /** Decodes `t` at once and urgently, whatever the plan: playback is waiting for it. */
  now(t) {
    if (this.stopped || this.store.isDecoded(t)) return;
    this.store.frame(t, true).catch((error) => this.onError(error));
  }
  stop() {
    this.stopped = true;
    this.plan = [];
  }
  async run() {
    this.running = true;
    try {
      while (!this.stopped) {
        const t = this.plan.shift();
        if (t === void 0) break;
        if (this.store.isDecoded(t) || !this.hasChunk(t)) continue;
        try {
          await this.store.frame(t, false);
        } catch (error) {
          this.onError(error);
        }
        await nextTask();
      }
    } finally {
      this.running = false;
    }
  }
};

// js/outbox.ts
var SPACING_MS = 8;
var Outbox = class {
  constructor(spacingMs = SPACING_MS, now = () => performance.now()) {
    this.spacingMs = spacingMs;
    this.now = now;
  }
  spacingMs;
  now;
  queue = [];
  last = Number.NEGATIVE_INFINITY;
  timer;
  /** Sends now if `urgent`, else once `spacingMs` have passed since the last message (queued in order). */
  send(message, urgent = false) {
    if (urgent) {
      this.last = this.now();
      message();
      return;
    }
    this.queue.push(message);
    this.drain();
  }
  /** Sends everything queued now (the view is closing: its last step must still be saved). */
  flush() {
    clearTimeout(this.timer);
    this.timer = void 0;
    for (const message of this.queue.splice(0)) message();
  }
  drain() {
    while (this.timer === void 0 && this.queue.length > 0) {
      const wait = this.last + this.spacingMs - this.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = void 0;
          this.drain();
        }, wait);
        return;
      }
      this.last = this.now();
      this.queue.shift()();
    }
  }
};

// js/card-order.ts
function arrange(previous, names) {
  const present = new Set(names);
  const kept = previous.filter((name) => present.has(name));
  const known = new Set(kept);
  return [...kept, ...names.filter((name) => !known.has(name))];
}
function move(order, name, delta) {
  const from = order.indexOf(name);
  if (from < 0) return [...order];
  const to = Math.max(0, Math.min(order.length - 1, from + delta));
  const moved = order.filter((other) => other !== name);
  moved.splice(to, 0, name);
  return moved;
}

// js/readout.ts
function formatNumber(x2) {
  if (x2 === void 0) return "-";
  if (Number.isInteger(x2) || !Number.isFinite(x2)) return String(x2);
  if (Math.abs(x2) < 1e-3) return x2.toPrecision(4);
  return String(Number.parseFloat(x2.toFixed(4)));
}
var flag = (value) => value === void 0 ? "-" : String(value);
function formatReadout(f) {
  return [
    `t = ${f.t} / ${f.T}`,
    `action: ${f.action}`,
    `reward: ${formatNumber(f.reward)}`,
    `return: ${formatNumber(f.return)}`,
    `terminated: ${flag(f.terminated)}  truncated: ${flag(f.truncated)}`,
    `info: ${f.infoLoaded ? JSON.stringify(f.info) : "\u2026"}`
  ].join("\n");
}
function actionText(t, meta, series, names) {
  if (meta !== void 0) return meta.action;
  const actions = series.actions;
  if (actions === void 0 || t >= actions.length) return "";
  const a = actions[t];
  const name = Number.isInteger(a) ? names[a] : void 0;
  return name === void 0 ? formatNumber(a) : `${formatNumber(a)} (${name})`;
}
function readoutFields(t, series, meta, names, length) {
  const T = series.rewards.length > 0 ? series.rewards.length : Math.max(0, length - 1);
  const outcome = Math.min(t, T - 1);
  const bool = (values) => outcome >= 0 && outcome < values.length ? values[outcome] !== 0 : void 0;
  return {
    t,
    T,
    action: actionText(t, meta, series, names),
    reward: t < series.rewards.length ? series.rewards[t] : void 0,
    return: t < series.returns.length ? series.returns[t] : void 0,
    terminated: bool(series.terminated),
    truncated: bool(series.truncated),
    info: meta?.info,
    infoLoaded: meta !== void 0
  };
}
var Readout = class {
  element;
  constructor(parent) {
    this.element = parent.appendChild(document.createElement("pre"));
    this.element.className = "aw-readout";
  }
  show(fields) {
    this.element.textContent = formatReadout(fields);
  }
};

// js/bars.ts
var ROW_HEIGHT = 18;
var BAR_COLOR = "#90a4ae";
var HIGHLIGHT_COLOR = "#e65100";
var LABEL_WIDTH = 0.3;
var VALUE_WIDTH = 0.18;
function layoutBars(values, labels, width, options = {}) {
  const left = Math.round(width * LABEL_WIDTH);
  const right = Math.round(width * (1 - VALUE_WIDTH));
  const finite = [...values].filter(Number.isFinite);
  const [low, high] = options.scale ?? [Math.min(0, ...finite), Math.max(0, ...finite)];
  const span = high - low || 1;
  const clamp = (x2) => Math.max(left, Math.min(right, x2));
  const xOf = (value) => clamp(left + (value - low) / span * (right - left));
  const zeroX = xOf(0);
  const rows = [...values].map((value, i2) => {
    const end = Number.isFinite(value) ? xOf(value) : zeroX;
    return {
      label: labels[i2] ?? String(i2),
      value,
      text: Number.isNaN(value) ? "nan" : formatNumber(value),
      highlight: i2 === options.highlight,
      greedy: i2 === options.greedy,
      x: Math.min(zeroX, end),
      width: Math.abs(end - zeroX),
      y: i2 * ROW_HEIGHT + 2,
      height: ROW_HEIGHT - 4
    };
  });
  return { rows, zeroX, left, right, width, height: values.length * ROW_HEIGHT };
}
function drawBars(canvas, layout, textColor) {
  canvas.width = layout.width;
  canvas.height = layout.height;
  const c = canvas.getContext("2d");
  c.clearRect(0, 0, layout.width, layout.height);
  c.font = "11px sans-serif";
  c.textBaseline = "middle";
  for (const row of layout.rows) {
    c.fillStyle = row.highlight ? HIGHLIGHT_COLOR : BAR_COLOR;
    if (Number.isFinite(row.value)) c.fillRect(Math.round(row.x), row.y, Math.max(1, Math.round(row.width)), row.height);
    c.fillStyle = textColor;
    if (row.greedy) {
      c.strokeStyle = textColor;
      c.lineWidth = 2;
      c.strokeRect(layout.left + 1, row.y - 1, layout.right - layout.left - 2, row.height + 2);
    }
    const middle = row.y + row.height / 2;
    c.textAlign = "right";
    c.fillText(row.label, layout.left - 4, middle, layout.left - 6);
    c.textAlign = "left";
    c.fillText(row.text, layout.right + 4, middle, layout.width - layout.right - 4);
  }
  c.fillStyle = textColor;
  c.fillRect(Math.round(layout.zeroX), 0, 1, layout.height);
}

// js/series.ts
var EMPTY = new Float64Array(0);
var HEADER = 4;
var DTYPES = {
  "|u1": [1, (v, o) => v.getUint8(o)],
  "|i1": [1, (v, o) => v.getInt8(o)],
  "<u2": [2, (v, o) => v.getUint16(o, true)],
  "<i2": [2, (v, o) => v.getInt16(o, true)],
  "<u4": [4, (v, o) => v.getUint32(o, true)],
  "<i4": [4, (v, o) => v.getInt32(o, true)],
  "<f4": [4, (v, o) => v.getFloat32(o, true)],
  "<f8": [8, (v, o) => v.getFloat64(o, true)]
};
function bytesOf(value) {
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return void 0;
}
function toFloat64(value) {
  const bytes = bytesOf(value);
  if (bytes === void 0) return EMPTY;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(Math.floor(bytes.byteLength / 8));
  for (let i2 = 0; i2 < out.length; i2++) out[i2] = view.getFloat64(i2 * 8, true);
  return out;
}
function readSeries(value) {
  const bytes = bytesOf(value);
  if (bytes === void 0 || bytes.byteLength < HEADER) return EMPTY;
  const name = String.fromCharCode(...bytes.subarray(0, HEADER)).trim();
  const dtype = DTYPES[name];
  if (dtype === void 0) {
    console.warn(`agent-widget: a series in unknown dtype ${JSON.stringify(name)} is left out`);
    return EMPTY;
  }
  const [size, read] = dtype;
  const view = new DataView(bytes.buffer, bytes.byteOffset + HEADER, bytes.byteLength - HEADER);
  const out = new Float64Array(Math.floor(view.byteLength / size));
  for (let i2 = 0; i2 < out.length; i2++) out[i2] = read(view, i2 * size);
  return out;
}
function returnsOf(rewards, length) {
  const out = new Float64Array(Math.max(0, length));
  for (let t = 1; t < out.length; t++) out[t] = out[t - 1] + (t - 1 < rewards.length ? rewards[t - 1] : 0);
  return out;
}
function parseSeries(raw, length) {
  const dict = raw ?? {};
  const extras = /* @__PURE__ */ new Map();
  for (const [name, value] of Object.entries(dict)) {
    if (name.startsWith("extra:")) extras.set(name.slice("extra:".length), readSeries(value));
  }
  const rewards = readSeries(dict.rewards);
  return {
    rewards,
    returns: returnsOf(rewards, length),
    terminated: readSeries(dict.terminated),
    truncated: readSeries(dict.truncated),
    actions: "actions" in dict ? readSeries(dict.actions) : void 0,
    extras
  };
}

// js/card-view.ts
var SMALL_IMAGE_WIDTH = 240;
var DEFAULT_OPACITY = 0.6;
var STALE_OVERLAY = 0.35;
var CardView = class {
  constructor(spec, actions, overlay) {
    this.spec = spec;
    this.overlay = overlay;
    this.element = el("div", "aw-card");
    this.element.dataset.name = spec.name;
    const header = this.element.appendChild(el("div", "aw-card-header"));
    this.collapseButton = header.appendChild(button("aw-collapse", "\u25BE", "Collapse / expand"));
    this.title = header.appendChild(el("span", "aw-card-title"));
    this.title.textContent = spec.name;
    this.stepLabel = header.appendChild(el("span", "aw-card-step"));
    this.progressBar = header.appendChild(el("progress", "aw-progress"));
    this.progressBar.hidden = true;
    const up = header.appendChild(button("aw-up", "\u2191", "Move up"));
    const down = header.appendChild(button("aw-down", "\u2193", "Move down"));
    const hide = header.appendChild(button("aw-hide", "\xD7", "Hide (show it again from the Panels menu)"));
    this.body = this.element.appendChild(el("div", "aw-card-body"));
    if (overlay !== void 0) {
      const label = this.element.appendChild(el("label", "aw-opacity-label"));
      label.append("opacity ");
      this.opacity = label.appendChild(input("aw-opacity", "range"));
      Object.assign(this.opacity, { min: "0", max: "1", step: "0.05", value: String(DEFAULT_OPACITY) });
      this.opacity.addEventListener("input", () => this.applyOverlayOpacity());
    }
    this.collapseButton.addEventListener("click", () => {
      const collapsed = !this.element.classList.contains("aw-collapsed");
      this.element.classList.toggle("aw-collapsed", collapsed);
      this.collapseButton.textContent = collapsed ? "\u25B8" : "\u25BE";
      actions.collapse(collapsed);
    });
    up.addEventListener("click", () => actions.move(-1));
    down.addEventListener("click", () => actions.move(1));
    hide.addEventListener("click", () => actions.hide());
    this.show(void 0);
  }
  spec;
  overlay;
  element;
  title;
  stepLabel;
  progressBar;
  collapseButton;
  body;
  opacity;
  card;
  current = false;
  renders = 0;
  get name() {
    return this.spec.name;
  }
  get hasOverlay() {
    return this.overlay !== void 0;
  }
  /** Takes the card and its overlay off the page. */
  remove() {
    this.element.remove();
    this.overlay?.remove();
  }
  setSpec(spec) {
    this.spec = spec;
  }
  /** Draws `card`, or a waiting note when there is none yet. */
  show(card) {
    this.card = card;
    const render2 = ++this.renders;
    this.body.replaceChildren();
    this.clearOverlay();
    const data = this.element.dataset;
    delete data.highlight;
    delete data.greedy;
    data.kind = card?.kind ?? "waiting";
    data.version = String(card?.version ?? this.spec.version);
    if (card === void 0) {
      delete data.step;
      this.body.append(text("div", "aw-empty", "computing\u2026"));
    } else {
      data.step = String(card.step);
      this.draw(card, render2);
    }
    this.setCurrent(this.current);
  }
  /** Whether the card shows the current step's result; if not it is dimmed, "updating". */
  setCurrent(current) {
    this.current = current;
    const card = this.card;
    this.element.dataset.current = String(current);
    this.element.classList.toggle("aw-stale", !current);
    this.stepLabel.textContent = card === void 0 ? "" : `t = ${card.step}${current ? "" : " \xB7 updating"}`;
    this.applyOverlayOpacity();
  }
  setProgress(progress) {
    const running = progress !== void 0 && progress.done < progress.total;
    this.progressBar.hidden = !running;
    if (progress === void 0) return;
    this.element.dataset.progress = `${progress.done}/${progress.total}`;
    this.progressBar.max = progress.total;
    this.progressBar.value = progress.done;
    this.progressBar.title = `precomputed ${progress.done} of ${progress.total} steps`;
  }
  /** Hidden cards take their overlay with them. */
  setHidden(hidden) {
    this.element.hidden = hidden;
    if (this.overlay !== void 0) this.overlay.hidden = hidden;
  }
  draw(card, render2) {
    const meta = card.meta;
    switch (card.kind) {
      case "bars":
        return this.drawBars(card);
      case "image":
      case "heatmap":
        if (card.kind === "heatmap") this.body.append(colorBar(card));
        this.drawImage(card, render2);
        return;
      case "text":
        this.body.append(text("pre", "aw-text", String(meta.text ?? "")));
        return;
      case "empty":
        this.body.append(text("div", "aw-empty", "nothing for this step"));
        return;
      case "error": {
        const box = this.body.appendChild(el("div", "aw-error"));
        box.append(text("div", "aw-error-title", `${String(meta.error)}: ${String(meta.message)}`));
        if (meta.traceback) box.append(text("pre", "aw-traceback", String(meta.traceback)));
      }
    }
  }
  drawBars(card) {
    const values = toFloat64(card.buffers[0]);
    const labels = Array.isArray(card.meta.labels) ? card.meta.labels.map(String) : [];
    const index = (value) => typeof value === "number" ? value : null;
    const highlight = index(card.meta.highlight);
    const greedy = index(card.meta.greedy);
    const scale = Array.isArray(card.meta.scale) ? card.meta.scale.map(Number) : null;
    this.element.dataset.highlight = highlight === null ? "" : String(highlight);
    if (greedy !== null) this.element.dataset.greedy = String(greedy);
    const canvas = this.body.appendChild(el("canvas", "aw-bars"));
    const width = Math.max(200, Math.round(this.body.clientWidth || 280));
    const color = getComputedStyle(this.element).color || BAR_COLOR;
    drawBars(canvas, layoutBars(values, labels, width, { highlight, greedy, scale }), color);
    if (typeof card.meta.caption === "string") this.body.append(text("div", "aw-caption", card.meta.caption));
  }
  /** Decodes the PNG off the main thread, then paints it in the card or over the frame. */
  drawImage(card, render2) {
    const onFrame = card.meta.overlay === true && this.overlay !== void 0;
    const canvas = onFrame ? this.overlay : this.body.appendChild(el("canvas", "aw-image"));
    const width = Number(card.meta.width);
    const height = Number(card.meta.height);
    canvas.width = width;
    canvas.height = height;
    if (!onFrame) canvas.style.width = `${width < SMALL_IMAGE_WIDTH ? width * Math.max(1, Math.floor(SMALL_IMAGE_WIDTH / width)) : width}px`;
    const png = card.buffers[0];
    createImageBitmap(new Blob([png], { type: "image/png" })).then(
      (bitmap) => {
        if (render2 === this.renders) {
          canvas.getContext("2d").drawImage(bitmap, 0, 0);
          canvas.dataset.step = String(card.step);
          if (onFrame) canvas.hidden = this.element.hidden;
          this.element.dataset.painted = String(card.step);
        }
        bitmap.close();
      },
      (error) => {
        if (render2 === this.renders) this.body.append(text("div", "aw-error", `could not decode the image: ${error.message}`));
      }
    );
  }
  clearOverlay() {
    if (this.overlay === void 0) return;
    this.overlay.getContext("2d").clearRect(0, 0, this.overlay.width, this.overlay.height);
    delete this.overlay.dataset.step;
    delete this.element.dataset.painted;
  }
  applyOverlayOpacity() {
    if (this.overlay === void 0 || this.opacity === void 0) return;
    const opacity = Number(this.opacity.value) * (this.current ? 1 : STALE_OVERLAY);
    this.overlay.style.opacity = String(opacity);
  }
};
function colorBar(card) {
  const bar = el("div", "aw-colorbar");
  const strip = bar.appendChild(el("canvas", "aw-colorbar-strip"));
  const lut = card.buffers[1] ?? new Uint8Array(0);
  const entries = Math.floor(lut.byteLength / 3);
  strip.width = Math.max(1, entries);
  strip.height = 1;
  const rgba = new Uint8ClampedArray(strip.width * 4);
  for (let i2 = 0; i2 < entries; i2++) rgba.set([lut[3 * i2], lut[3 * i2 + 1], lut[3 * i2 + 2], 255], 4 * i2);
  strip.getContext("2d").putImageData(new ImageData(rgba, strip.width, 1), 0, 0);
  bar.prepend(text("span", "aw-min", formatNumber(Number(card.meta.min))));
  bar.append(text("span", "aw-max", formatNumber(Number(card.meta.max))));
  return bar;
}
function text(tag, className, content) {
  const element = el(tag, className);
  element.textContent = content;
  return element;
}

// js/cache.ts
var ByteLRU = class {
  constructor(limit, sizeOf, onEvict) {
    this.limit = limit;
    this.sizeOf = sizeOf;
    this.onEvict = onEvict;
  }
  limit;
  sizeOf;
  onEvict;
  // A Map iterates in insertion order; re-inserting on access keeps the oldest first.
  entries = /* @__PURE__ */ new Map();
  total = 0;
  /** The most bytes held (but for one entry bigger than that). */
  get budget() {
    return this.limit;
  }
  /** Changes the budget, evicting the least recently used entries down to it. */
  resize(budget) {
    this.limit = budget;
    this.evict();
  }
  /** Bytes currently held. */
  get bytes() {
    return this.total;
  }
  get size() {
    return this.entries.size;
  }
  has(key2) {
    return this.entries.has(key2);
  }
  /** Returns the value and marks it most recently used. */
  get(key2) {
    const entry = this.entries.get(key2);
    if (entry === void 0) return void 0;
    this.entries.delete(key2);
    this.entries.set(key2, entry);
    return entry.value;
  }
  /** Returns the value without changing its recency. */
  peek(key2) {
    return this.entries.get(key2)?.value;
  }
  /**
   * Stores a value as the most recently used, evicting the least recently used
   * until the budget holds. A value bigger than the whole budget is still kept
   * (alone), so the frame on screen can always be cached.
   */
  set(key2, value) {
    this.delete(key2);
    const bytes = this.sizeOf(value);
    this.entries.set(key2, { value, bytes });
    this.total += bytes;
    this.evict();
  }
  /** Drops the least recently used entries until the budget holds, keeping the newest one at least. */
  evict() {
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.limit || this.entries.size === 1) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
      this.onEvict?.(entry.value);
    }
  }
  delete(key2) {
    const entry = this.entries.get(key2);
    if (entry === void 0) return false;
    this.entries.delete(key2);
    this.total -= entry.bytes;
    return true;
  }
  /** Deletes every entry whose key matches. */
  deleteWhere(predicate) {
    for (const key2 of [...this.entries.keys()]) if (predicate(key2)) this.delete(key2);
  }
  clear() {
    this.entries.clear();
    this.total = 0;
  }
  keys() {
    return this.entries.keys();
  }
};

// js/panel-state.ts
var KINDS = ["bars", "image", "heatmap", "text", "empty", "error"];
var HEADER2 = /* @__PURE__ */ new Set(["type", "id", "name", "step", "version", "kind"]);
var PanelState = class {
  constructor(options) {
    this.options = options;
    this.cache = new ByteLRU(options.cacheBytes ?? 32 * 2 ** 20, cardBytes);
  }
  options;
  panels = /* @__PURE__ */ new Map();
  cache;
  step = -1;
  /** The panels in the kernel's order. */
  get specs() {
    return [...this.panels.values()].map((panel) => panel.spec);
  }
  /** The card panel `name` shows, if any. */
  shown(name) {
    return this.panels.get(name)?.shown;
  }
  /** Whether panel `name` shows the current step's result (else it is updating). */
  isCurrent(name) {
    const panel = this.panels.get(name);
    return panel?.shown !== void 0 && panel.shown.step === this.step && !panel.outdated;
  }
  progress(name) {
    return this.panels.get(name)?.progress;
  }
  /**
   * Takes the kernel's panel list. New panels and replaced functions (a new
   * version) start afresh; removed ones are forgotten. Then asks for what is missing.
   */
  setPanels(specs) {
    const old = new Map(this.panels);
    this.panels.clear();
    for (const spec of specs) {
      const previous = old.get(spec.name);
      if (previous !== void 0 && previous.spec.version === spec.version) {
        previous.spec = spec;
        this.panels.set(spec.name, previous);
        continue;
      }
      this.cache.deleteWhere((key2) => key2.startsWith(`${spec.name}
`));
      this.panels.set(spec.name, { spec, active: previous?.active ?? true, shown: void 0, outdated: false, inFlight: void 0, progress: void 0 });
      if (previous !== void 0) this.options.show(spec.name, void 0);
    }
    for (const name of old.keys()) {
      if (!this.panels.has(name)) this.cache.deleteWhere((key2) => key2.startsWith(`${name}
`));
    }
    this.refresh();
  }
  /** Hidden (or collapsed) panels are not asked for; shown again, they catch up. */
  setActive(name, active) {
    const panel = this.panels.get(name);
    if (panel === void 0 || panel.active === active) return;
    panel.active = active;
    if (active) this.refresh();
  }
  /** The view moved to `step`: show cached cards at once, ask for the others. */
  setStep(step) {
    this.step = step;
    this.refresh();
  }
  /** Position `t` changed (it gained an action as the episode grew): its cards are redone. */
  forgetStep(t) {
    for (const [name, panel] of this.panels) {
      this.cache.delete(key(name, t));
      if (panel.shown?.step === t) panel.outdated = true;
    }
    this.refresh();
  }
  /** Handles a kernel message about panels; returns whether it was one. */
  receive(message, buffers) {
    const msg = message;
    if (msg === null || typeof msg !== "object") return false;
    if (msg.type === "panel-progress") {
      const panel2 = this.panels.get(String(msg.name));
      if (panel2 !== void 0 && panel2.spec.version === msg.version) {
        panel2.progress = { done: Number(msg.done), total: Number(msg.total) };
      }
      return true;
    }
    if (msg.type !== "panel") return false;
    const panel = this.panels.get(String(msg.name));
    const step = Number(msg.step);
    if (panel === void 0 || panel.spec.version !== msg.version) return true;
    if (panel.inFlight?.step === step) panel.inFlight = void 0;
    if (KINDS.includes(String(msg.kind))) {
      const card = toCard(msg, buffers);
      this.cache.set(key(card.name, step), card);
      if (step === this.step || !this.isCurrent(card.name)) this.display(panel, card);
    }
    this.refresh();
    return true;
  }
  display(panel, card) {
    panel.shown = card;
    panel.outdated = false;
    this.options.show(card.name, card);
  }
  /** Shows cached cards of the current step and asks for the missing ones not in flight. */
  refresh() {
    if (this.step < 0) return;
    const now = (this.options.now ?? performance.now.bind(performance))();
    const timeout = this.options.timeoutMs ?? 2e4;
    const missing = [];
    for (const [name, panel] of this.panels) {
      if (!panel.active || this.isCurrent(name)) continue;
      const cached = this.cache.get(key(name, this.step));
      if (cached !== void 0) {
        this.display(panel, cached);
        continue;
      }
      if (panel.inFlight !== void 0 && now - panel.inFlight.at < timeout) continue;
      panel.inFlight = { step: this.step, at: now };
      missing.push(name);
    }
    if (missing.length > 0) this.options.request(this.step, missing);
  }
};
function key(name, step) {
  return `${name}
${step}`;
}
function toCard(msg, buffers) {
  const meta = {};
  for (const [field, value] of Object.entries(msg)) if (!HEADER2.has(field)) meta[field] = value;
  return {
    name: String(msg.name),
    step: Number(msg.step),
    version: Number(msg.version),
    kind: msg.kind,
    meta,
    // Own copies: a small view must not keep a whole websocket message alive in the cache.
    buffers: buffers.map((view) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength).slice())
  };
}
function cardBytes(card) {
  return card.buffers.reduce((sum, buffer) => sum + buffer.byteLength, 0) + 2 * JSON.stringify(card.meta).length;
}

// js/panels.ts
var PanelCards = class {
  constructor(model, parent, stage, outbox) {
    this.model = model;
    this.stage = stage;
    this.element = parent.appendChild(el("div", "aw-panels"));
    this.menu = this.element.appendChild(el("details", "aw-panel-menu"));
    this.menu.appendChild(el("summary", "aw-panel-menu-title")).textContent = "Panels";
    this.menuList = this.menu.appendChild(el("div", "aw-panel-menu-list"));
    this.list = this.element.appendChild(el("div", "aw-cards"));
    this.state = new PanelState({
      request: (step, names) => outbox.send(() => this.disposed || model.send({ type: "panel", id: this.nextId++, step, names })),
      show: (name, card) => this.views.get(name)?.show(card)
    });
    model.on("msg:custom", this.onMessage);
    model.on("change:panels", this.onPanels);
    this.setPanels();
  }
  model;
  stage;
  element;
  menu;
  menuList;
  list;
  state;
  views = /* @__PURE__ */ new Map();
  hidden = /* @__PURE__ */ new Set();
  collapsed = /* @__PURE__ */ new Set();
  order = [];
  nextId = 1;
  disposed = false;
  onMessage = (msg, buffers) => {
    if (this.state.receive(msg, buffers ?? [])) this.refresh();
  };
  onPanels = () => this.setPanels();
  /** The view shows position `t`. */
  setStep(t) {
    this.state.setStep(t);
    this.refresh();
  }
  /** The episode grew from `oldLength` positions: the old last one gained an action. */
  grown(oldLength) {
    this.state.forgetStep(oldLength - 1);
    this.refresh();
  }
  dispose() {
    this.disposed = true;
    this.model.off("msg:custom", this.onMessage);
    this.model.off("change:panels", this.onPanels);
    for (const view of this.views.values()) this.removeView(view);
    this.element.remove();
  }
  setPanels() {
    const specs = readSpecs(this.model.get("panels"));
    for (const spec of specs) {
      const view = this.views.get(spec.name);
      if (view !== void 0 && view.hasOverlay !== spec.overlay) this.removeView(view);
      const kept = this.views.get(spec.name);
      if (kept !== void 0) kept.setSpec(spec);
      else this.views.set(spec.name, this.createView(spec));
    }
    const names = new Set(specs.map((spec) => spec.name));
    for (const [name, view] of this.views) if (!names.has(name)) this.removeView(view);
    this.order = arrange(this.order, specs.map((spec) => spec.name));
    this.state.setPanels(specs);
    this.layout();
    this.refresh();
  }
  createView(spec) {
    let overlay;
    if (spec.overlay) {
      overlay = this.stage.appendChild(el("canvas", "aw-overlay"));
      overlay.dataset.name = spec.name;
    }
    const name = spec.name;
    const view = new CardView(
      spec,
      {
        move: (delta) => {
          this.order = move(this.order, name, delta);
          this.layout();
        },
        hide: () => this.setHidden(name, true),
        collapse: (collapsed) => {
          if (collapsed) this.collapsed.add(name);
          else this.collapsed.delete(name);
          this.updateActive(name);
        }
      },
      overlay
    );
    view.show(this.state.shown(name));
    return view;
  }
  removeView(view) {
    this.views.delete(view.name);
    view.remove();
  }
  setHidden(name, hidden) {
    if (hidden) this.hidden.add(name);
    else this.hidden.delete(name);
    this.views.get(name)?.setHidden(hidden);
    this.updateActive(name);
    this.layoutMenu();
  }
  /** Hidden cards are not computed; collapsed ones only when their overlay is still drawn. */
  updateActive(name) {
    const overlay = this.state.specs.find((spec) => spec.name === name)?.overlay ?? false;
    const active = !this.hidden.has(name) && (overlay || !this.collapsed.has(name));
    this.state.setActive(name, active);
    this.refresh();
  }
  /** Puts the cards in order and rebuilds the menu. */
  layout() {
    for (const name of this.order) {
      const view = this.views.get(name);
      if (view === void 0) continue;
      this.list.append(view.element);
      view.setHidden(this.hidden.has(name));
    }
    for (const name of this.order) this.updateActive(name);
    this.element.hidden = this.order.length === 0;
    this.layoutMenu();
  }
  layoutMenu() {
    this.menuList.replaceChildren(
      ...this.order.map((name) => {
        const label = el("label", "aw-panel-menu-item");
        const box = label.appendChild(input("aw-show", "checkbox"));
        box.dataset.name = name;
        box.checked = !this.hidden.has(name);
        box.addEventListener("change", () => this.setHidden(name, !box.checked));
        label.append(` ${name}`);
        return label;
      })
    );
  }
  /** Brings every card's staleness and progress up to date with the state. */
  refresh() {
    for (const [name, view] of this.views) {
      view.setCurrent(this.state.isCurrent(name));
      view.setProgress(this.state.progress(name));
    }
  }
};
function readSpecs(value) {
  if (!Array.isArray(value)) return [];
  return value.filter((spec) => spec !== null && typeof spec === "object" && typeof spec.name === "string").map((spec) => ({
    name: spec.name,
    overlay: spec.overlay === true,
    precompute: spec.precompute === true,
    version: Number(spec.version) || 0
  }));
}

// js/prefetch.ts
var chunkOf = (t, chunkSize) => Math.floor(t / chunkSize);
var numChunks = (length, chunkSize) => Math.ceil(length / chunkSize);
function missingInWindow(w, present) {
  const count = numChunks(w.length, w.chunkSize);
  const current = chunkOf(w.step, w.chunkSize);
  const wanted = [current];
  for (let i2 = 1; i2 <= w.ahead; i2++) wanted.push(current + i2 * w.direction);
  for (let i2 = 1; i2 <= w.behind; i2++) wanted.push(current - i2 * w.direction);
  const inRange = w.wrap ? wanted.map((k) => mod(k, count)) : wanted.filter((k) => k >= 0 && k < count);
  return [...new Set(inRange)].filter((k) => !present(k));
}
function aheadChunks(fps, chunkSize, chunkBytes, budget) {
  const forPlayback = Math.max(2, Math.ceil(fps / chunkSize) + 1);
  if (chunkBytes <= 0) return forPlayback;
  const affordable = Math.floor(budget / 2 / chunkBytes) - 2;
  return Math.max(1, Math.min(forPlayback, affordable));
}
function toRequests(chunks, current, perRequest) {
  const requests = [];
  let rest = chunks;
  if (rest[0] === current) {
    requests.push([current]);
    rest = rest.slice(1);
  }
  for (let i2 = 0; i2 < rest.length; i2 += perRequest) requests.push(rest.slice(i2, i2 + perRequest));
  return requests;
}
function chunksPerRequest(chunkBytes, targetBytes, maxCount) {
  if (chunkBytes <= 0) return 1;
  return Math.max(1, Math.min(maxCount, Math.floor(targetBytes / chunkBytes)));
}
function fitsBudget(chunkBytes, chunks, budget) {
  return chunkBytes > 0 && chunkBytes * chunks <= 0.9 * budget;
}
function backgroundBatch(current, direction, chunks, present, max2) {
  const batch = [];
  for (let d = 0; batch.length < max2 && (current + d < chunks || current - d >= 0); d++) {
    for (const k of d === 0 ? [current] : [current + d * direction, current - d * direction]) {
      if (k >= 0 && k < chunks && !present(k) && batch.length < max2) batch.push(k);
    }
  }
  return batch;
}
function decodePlan(step, direction, length, ahead, behind, wrap) {
  const plan = [step];
  for (let i2 = 1; i2 <= ahead; i2++) plan.push(step + i2 * direction);
  for (let i2 = 1; i2 <= behind; i2++) plan.push(step - i2 * direction);
  const inRange = wrap ? plan.map((t) => mod(t, length)) : plan.filter((t) => t >= 0 && t < length);
  return [...new Set(inRange)];
}
var mod = (a, n) => (a % n + n) % n;

// js/player.ts
var PlaybackClock = class {
  constructor(options) {
    this.options = options;
  }
  options;
  /** Frames skipped because painting could not keep up. */
  dropped = 0;
  /** Times playback had to wait for a frame that was not ready. */
  stalls = 0;
  origin = 0;
  /** Unwrapped positions: with loop, position p shows frame p mod length. */
  base = 0;
  shown = 0;
  waiting = false;
  /** Starts counting from `step`, shown at time `now` (ms). */
  start(now, step) {
    this.origin = now;
    this.base = this.shown = step;
    this.waiting = false;
  }
  /** Advances to time `now`; `ready(t)` says whether frame t can be painted immediately. */
  tick(now, ready) {
    const { length, loop } = this.options;
    const last = length - 1;
    if (!loop && this.shown >= last) return { step: null, ended: true };
    if (this.waiting) {
      const next = this.shown + 1;
      if (!ready(this.wrap(next))) return { step: null, ended: false, waitingFor: this.wrap(next) };
      this.start(now, next);
      return { step: this.wrap(next), ended: !loop && next >= last };
    }
    let due = this.base + Math.round((now - this.origin) * this.options.fps / 1e3);
    if (!loop) due = Math.min(due, last);
    if (due <= this.shown) return { step: null, ended: false };
    if (!ready(this.wrap(due))) {
      this.waiting = true;
      this.stalls++;
      return this.tick(now, ready);
    }
    this.dropped += due - this.shown - 1;
    this.shown = due;
    return { step: this.wrap(due), ended: !loop && due >= last };
  }
  wrap(p) {
    return (p % this.options.length + this.options.length) % this.options.length;
  }
};
var Player = class {
  constructor(hooks) {
    this.hooks = hooks;
  }
  hooks;
  frame = 0;
  clock;
  dropped = 0;
  get playing() {
    return this.clock !== void 0;
  }
  /** Frames dropped over all playbacks of this view. */
  get droppedFrames() {
    return this.dropped + (this.clock?.dropped ?? 0);
  }
  /** Starts (or restarts) playback from `step`; the clock starts at the next animation frame. */
  play(step, options) {
    this.pause();
    const clock = new PlaybackClock(options);
    this.clock = clock;
    let started = false;
    let needed;
    const onFrame = (now) => {
      this.frame = requestAnimationFrame(onFrame);
      if (!started) {
        clock.start(now, step);
        started = true;
        return;
      }
      const { step: t, ended, waitingFor } = clock.tick(now, this.hooks.ready);
      if (waitingFor !== void 0 && waitingFor !== needed) this.hooks.need?.(waitingFor);
      needed = waitingFor;
      if (t !== null) this.hooks.show(t);
      if (ended) {
        this.pause();
        this.hooks.ended();
      }
    };
    this.frame = requestAnimationFrame(onFrame);
  }
  pause() {
    cancelAnimationFrame(this.frame);
    this.dropped += this.clock?.dropped ?? 0;
    this.clock = void 0;
  }
};

// node_modules/fflate/esm/browser.js
var u8 = Uint8Array;
var u16 = Uint16Array;
var i32 = Int32Array;
var fleb = new u8([
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  1,
  1,
  1,
  1,
  2,
  2,
  2,
  2,
  3,
  3,
  3,
  3,
  4,
  4,
  4,
  4,
  5,
  5,
  5,
  5,
  0,
  /* unused */
  0,
  0,
  /* impossible */
  0
]);
var fdeb = new u8([
  0,
  0,
  0,
  0,
  1,
  1,
  2,
  2,
  3,
  3,
  4,
  4,
  5,
  5,
  6,
  6,
  7,
  7,
  8,
  8,
  9,
  9,
  10,
  10,
  11,
  11,
  12,
  12,
  13,
  13,
  /* unused */
  0,
  0
]);
var clim = new u8([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);
var freb = function(eb, start) {
  var b = new u16(31);
  for (var i2 = 0; i2 < 31; ++i2) {
    b[i2] = start += 1 << eb[i2 - 1];
  }
  var r = new i32(b[30]);
  for (var i2 = 1; i2 < 30; ++i2) {
    for (var j = b[i2]; j < b[i2 + 1]; ++j) {
      r[j] = j - b[i2] << 5 | i2;
    }
  }
  return { b, r };
};
var _a = freb(fleb, 2);
var fl = _a.b;
var revfl = _a.r;
fl[28] = 258, revfl[258] = 28;
var _b = freb(fdeb, 0);
var fd = _b.b;
var revfd = _b.r;
var rev = new u16(32768);
for (i = 0; i < 32768; ++i) {
  x = (i & 43690) >> 1 | (i & 21845) << 1;
  x = (x & 52428) >> 2 | (x & 13107) << 2;
  x = (x & 61680) >> 4 | (x & 3855) << 4;
  rev[i] = ((x & 65280) >> 8 | (x & 255) << 8) >> 1;
}
var x;
var i;
var hMap = (function(cd, mb, r) {
  var s = cd.length;
  var i2 = 0;
  var l = new u16(mb);
  for (; i2 < s; ++i2) {
    if (cd[i2])
      ++l[cd[i2] - 1];
  }
  var le = new u16(mb);
  for (i2 = 1; i2 < mb; ++i2) {
    le[i2] = le[i2 - 1] + l[i2 - 1] << 1;
  }
  var co;
  if (r) {
    co = new u16(1 << mb);
    var rvb = 15 - mb;
    for (i2 = 0; i2 < s; ++i2) {
      if (cd[i2]) {
        var sv = i2 << 4 | cd[i2];
        var r_1 = mb - cd[i2];
        var v = le[cd[i2] - 1]++ << r_1;
        for (var m = v | (1 << r_1) - 1; v <= m; ++v) {
          co[rev[v] >> rvb] = sv;
        }
      }
    }
  } else {
    co = new u16(s);
    for (i2 = 0; i2 < s; ++i2) {
      if (cd[i2]) {
        co[i2] = rev[le[cd[i2] - 1]++] >> 15 - cd[i2];
      }
    }
  }
  return co;
});
var flt = new u8(288);
for (i = 0; i < 144; ++i)
  flt[i] = 8;
var i;
for (i = 144; i < 256; ++i)
  flt[i] = 9;
var i;
for (i = 256; i < 280; ++i)
  flt[i] = 7;
var i;
for (i = 280; i < 288; ++i)
  flt[i] = 8;
var i;
var fdt = new u8(32);
for (i = 0; i < 32; ++i)
  fdt[i] = 5;
var i;
var flrm = /* @__PURE__ */ hMap(flt, 9, 1);
var fdrm = /* @__PURE__ */ hMap(fdt, 5, 1);
var max = function(a) {
  var m = a[0];
  for (var i2 = 1; i2 < a.length; ++i2) {
    if (a[i2] > m)
      m = a[i2];
  }
  return m;
};
var bits = function(d, p, m) {
  var o = p / 8 | 0;
  return (d[o] | d[o + 1] << 8) >> (p & 7) & m;
};
var bits16 = function(d, p) {
  var o = p / 8 | 0;
  return (d[o] | d[o + 1] << 8 | d[o + 2] << 16) >> (p & 7);
};
var shft = function(p) {
  return (p + 7) / 8 | 0;
};
var slc = function(v, s, e) {
  if (s == null || s < 0)
    s = 0;
  if (e == null || e > v.length)
    e = v.length;
  return new u8(v.subarray(s, e));
};
var ec = [
  "unexpected EOF",
  "invalid block type",
  "invalid length/literal",
  "invalid distance",
  "stream finished",
  "no stream handler",
  ,
  // determined by compression function
  "no callback",
  "invalid UTF-8 data",
  "extra field too long",
  "date not in range 1980-2099",
  "filename too long",
  "stream finishing",
  "invalid zip data"
  // determined by unknown compression method
];
var err = function(ind, msg, nt) {
  var e = new Error(msg || ec[ind]);
  e.code = ind;
  if (Error.captureStackTrace)
    Error.captureStackTrace(e, err);
  if (!nt)
    throw e;
  return e;
};
var inflt = function(dat, st, buf, dict) {
  var sl = dat.length, dl = dict ? dict.length : 0;
  if (!sl || st.f && !st.l)
    return buf || new u8(0);
  var noBuf = !buf;
  var resize = noBuf || st.i != 2;
  var noSt = st.i;
  if (noBuf)
    buf = new u8(sl * 3);
  var cbuf = function(l2) {
    var bl = buf.length;
    if (l2 > bl) {
      var nbuf = new u8(Math.max(bl * 2, l2));
      nbuf.set(buf);
      buf = nbuf;
    }
  };
  var final = st.f || 0, pos = st.p || 0, bt = st.b || 0, lm = st.l, dm = st.d, lbt = st.m, dbt = st.n;
  var tbts = sl * 8;
  do {
    if (!lm) {
      final = bits(dat, pos, 1);
      var type = bits(dat, pos + 1, 3);
      pos += 3;
      if (!type) {
        var s = shft(pos) + 4, l = dat[s - 4] | dat[s - 3] << 8, t = s + l;
        if (t > sl) {
          if (noSt)
            err(0);
          break;
        }
        if (resize)
          cbuf(bt + l);
        buf.set(dat.subarray(s, t), bt);
        st.b = bt += l, st.p = pos = t * 8, st.f = final;
        continue;
      } else if (type == 1)
        lm = flrm, dm = fdrm, lbt = 9, dbt = 5;
      else if (type == 2) {
        var hLit = bits(dat, pos, 31) + 257, hcLen = bits(dat, pos + 10, 15) + 4;
        var tl = hLit + bits(dat, pos + 5, 31) + 1;
        pos += 14;
        var ldt = new u8(tl);
        var clt = new u8(19);
        for (var i2 = 0; i2 < hcLen; ++i2) {
          clt[clim[i2]] = bits(dat, pos + i2 * 3, 7);
        }
        pos += hcLen * 3;
        var clb = max(clt), clbmsk = (1 << clb) - 1;
        var clm = hMap(clt, clb, 1);
        for (var i2 = 0; i2 < tl; ) {
          var r = clm[bits(dat, pos, clbmsk)];
          pos += r & 15;
          var s = r >> 4;
          if (s < 16) {
            ldt[i2++] = s;
          } else {
            var c = 0, n = 0;
            if (s == 16)
              n = 3 + bits(dat, pos, 3), pos += 2, c = ldt[i2 - 1];
            else if (s == 17)
              n = 3 + bits(dat, pos, 7), pos += 3;
            else if (s == 18)
              n = 11 + bits(dat, pos, 127), pos += 7;
            while (n--)
              ldt[i2++] = c;
          }
        }
        var lt = ldt.subarray(0, hLit), dt = ldt.subarray(hLit);
        lbt = max(lt);
        dbt = max(dt);
        lm = hMap(lt, lbt, 1);
        dm = hMap(dt, dbt, 1);
      } else
        err(1);
      if (pos > tbts) {
        if (noSt)
          err(0);
        break;
      }
    }
    if (resize)
      cbuf(bt + 131072);
    var lms = (1 << lbt) - 1, dms = (1 << dbt) - 1;
    var lpos = pos;
    for (; ; lpos = pos) {
      var c = lm[bits16(dat, pos) & lms], sym = c >> 4;
      pos += c & 15;
      if (pos > tbts) {
        if (noSt)
          err(0);
        break;
      }
      if (!c)
        err(2);
      if (sym < 256)
        buf[bt++] = sym;
      else if (sym == 256) {
        lpos = pos, lm = null;
        break;
      } else {
        var add = sym - 254;
        if (sym > 264) {
          var i2 = sym - 257, b = fleb[i2];
          add = bits(dat, pos, (1 << b) - 1) + fl[i2];
          pos += b;
        }
        var d = dm[bits16(dat, pos) & dms], dsym = d >> 4;
        if (!d)
          err(3);
        pos += d & 15;
        var dt = fd[dsym];
        if (dsym > 3) {
          var b = fdeb[dsym];
          dt += bits16(dat, pos) & (1 << b) - 1, pos += b;
        }
        if (pos > tbts) {
          if (noSt)
            err(0);
          break;
        }
        if (resize)
          cbuf(bt + 131072);
        var end = bt + add;
        if (bt < dt) {
          var shift = dl - dt, dend = Math.min(dt, end);
          if (shift + bt < 0)
            err(3);
          for (; bt < dend; ++bt)
            buf[bt] = dict[shift + bt];
        }
        for (; bt < end; ++bt)
          buf[bt] = buf[bt - dt];
      }
    }
    st.l = lm, st.p = lpos, st.b = bt, st.f = final;
    if (lm)
      final = 1, st.m = lbt, st.d = dm, st.n = dbt;
  } while (!final);
  return bt != buf.length && noBuf ? slc(buf, 0, bt) : buf.subarray(0, bt);
};
var et = /* @__PURE__ */ new u8(0);
var zls = function(d, dict) {
  if ((d[0] & 15) != 8 || d[0] >> 4 > 7 || (d[0] << 8 | d[1]) % 31)
    err(6, "invalid zlib data");
  if ((d[1] >> 5 & 1) == +!dict)
    err(6, "invalid zlib data: " + (d[1] & 32 ? "need" : "unexpected") + " dictionary");
  return (d[1] >> 3 & 4) + 2;
};
function unzlibSync(data, opts) {
  return inflt(data.subarray(zls(data, opts && opts.dictionary), -4), { i: 2 }, opts && opts.out, opts && opts.dictionary);
}
var td = typeof TextDecoder != "undefined" && /* @__PURE__ */ new TextDecoder();
var tds = 0;
try {
  td.decode(et, { stream: true });
  tds = 1;
} catch (e) {
}
var dutf8 = function(d) {
  for (var r = "", i2 = 0; ; ) {
    var c = d[i2++];
    var eb = (c > 127) + (c > 223) + (c > 239);
    if (i2 + eb > d.length)
      return { s: r, r: slc(d, i2 - 1) };
    if (!eb)
      r += String.fromCharCode(c);
    else if (eb == 3) {
      c = ((c & 15) << 18 | (d[i2++] & 63) << 12 | (d[i2++] & 63) << 6 | d[i2++] & 63) - 65536, r += String.fromCharCode(55296 | c >> 10, 56320 | c & 1023);
    } else if (eb & 1)
      r += String.fromCharCode((c & 31) << 6 | d[i2++] & 63);
    else
      r += String.fromCharCode((c & 15) << 12 | (d[i2++] & 63) << 6 | d[i2++] & 63);
  }
};
function strFromU8(dat, latin1) {
  if (latin1) {
    var r = "";
    for (var i2 = 0; i2 < dat.length; i2 += 16384)
      r += String.fromCharCode.apply(null, dat.subarray(i2, i2 + 16384));
    return r;
  } else if (td) {
    return td.decode(dat);
  } else {
    var _a2 = dutf8(dat), s = _a2.s, r = _a2.r;
    if (r.length)
      err(8);
    return s;
  }
}

// js/transport.ts
var ChunkTransport = class {
  constructor(model, options) {
    this.model = model;
    this.options = options;
    this.outbox = options.outbox ?? new Outbox(0);
    model.on("msg:custom", this.onMessage);
  }
  model;
  options;
  nextId = 1;
  pending = /* @__PURE__ */ new Map();
  timers = /* @__PURE__ */ new Map();
  onMessage = (msg, buffers) => this.receive(msg, buffers ?? []);
  outbox;
  /** Whether chunk `k` has been asked for and not yet answered. */
  isPending(k) {
    return this.pending.has(k);
  }
  /**
   * Asks for `chunks` in one message (leaving out those already in flight) and
   * returns one promise per requested chunk, in the same order. `urgent`: a paint
   * waits for the reply, so the request leaves ahead of the view's other messages.
   */
  fetch(chunks, urgent = false) {
    const fresh = [...new Set(chunks)].filter((k) => !this.pending.has(k));
    if (fresh.length > 0) {
      const id = this.nextId++;
      for (const k of fresh) this.pending.set(k, deferred(id));
      this.timers.set(
        id,
        setTimeout(() => this.fail(id, new TimeoutError(`chunk request ${id} timed out`)), this.options.timeoutMs ?? 2e4)
      );
      const wanted = () => fresh.some((k) => this.pending.get(k)?.id === id);
      this.outbox.send(() => wanted() && this.model.send({ type: "chunks", id, chunks: fresh }), urgent);
    }
    return chunks.map((k) => this.pending.get(k).promise);
  }
  /** Drops interest in chunk `k`: its in-flight reply will be ignored and its promise rejects. */
  forget(k) {
    const entry = this.pending.get(k);
    if (entry === void 0) return;
    this.pending.delete(k);
    entry.reject(new StaleError(`chunk ${k} changed while it was requested`));
  }
  /** `forget` for every chunk in flight. */
  forgetAll() {
    for (const k of [...this.pending.keys()]) this.forget(k);
  }
  dispose() {
    this.model.off("msg:custom", this.onMessage);
    for (const id of [...this.timers.keys()]) this.fail(id, new StaleError("the view was closed"));
  }
  receive(msg, buffers) {
    const reply = msg;
    if (reply === null || typeof reply !== "object") return;
    if (reply.type === "chunks" && reply.push === true) {
      this.receivePush(reply, buffers);
      return;
    }
    if (reply.id === null || !this.timers.has(reply.id)) return;
    if (reply.type === "error") {
      this.fail(reply.id, new Error(reply.message));
    } else if (reply.type === "chunks") {
      try {
        this.settle(reply.id, parseReply(reply, buffers, this.options.chunkSize()));
      } catch (error) {
        this.fail(reply.id, error);
      }
    }
  }
  receivePush(push, buffers) {
    let chunks;
    try {
      chunks = parseReply(push, buffers, this.options.chunkSize());
    } catch (error) {
      this.options.onPushError?.(error);
      return;
    }
    for (const [k, data] of chunks) {
      const entry = this.pending.get(k);
      if (entry === void 0) {
        this.options.onPush?.(data);
        continue;
      }
      this.pending.delete(k);
      entry.resolve(data);
      if (![...this.pending.values()].some((other) => other.id === entry.id)) this.clearTimer(entry.id);
    }
  }
  settle(id, chunks) {
    this.clearTimer(id);
    for (const [k, entry] of this.pending) {
      if (entry.id !== id) continue;
      this.pending.delete(k);
      entry.resolve(chunks.get(k) ?? { chunk: k, parts: [], steps: /* @__PURE__ */ new Map(), bytes: 0 });
    }
  }
  fail(id, error) {
    this.clearTimer(id);
    for (const [k, entry] of this.pending) {
      if (entry.id !== id) continue;
      this.pending.delete(k);
      entry.reject(error);
    }
  }
  clearTimer(id) {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }
};
var StaleError = class extends Error {
};
var TimeoutError = class extends Error {
};
function parseReply(reply, buffers, chunkSize) {
  const parts = reply.parts ?? [];
  const what = reply.push === true ? "chunk push" : `chunk reply ${reply.id}`;
  if (parts.length + 1 !== buffers.length) {
    throw new Error(`${what} has ${parts.length} parts but ${buffers.length} buffers (a payload per part, then the readout data)`);
  }
  const chunks = /* @__PURE__ */ new Map();
  const entry = (k) => {
    let data = chunks.get(k);
    if (data === void 0) chunks.set(k, data = { chunk: k, parts: [], steps: /* @__PURE__ */ new Map(), bytes: 0 });
    return data;
  };
  parts.forEach((header, i2) => {
    const payload = ownBytes(buffers[i2]);
    const part = {
      chunk: header.chunk,
      start: header.start,
      count: header.count,
      height: header.height,
      width: header.width,
      encoding: header.encoding,
      payload
    };
    const data = entry(header.chunk);
    data.parts.push(part);
    data.bytes += payload.byteLength;
  });
  for (const [key2, { actions, infos }] of Object.entries(readoutTable(buffers[parts.length], what))) {
    const k = Number(key2);
    const data = entry(k);
    infos.forEach((info, i2) => {
      const t = k * chunkSize + i2;
      const meta = { action: typeof actions[i2] === "string" ? actions[i2] : "", info: info ?? null };
      data.steps.set(t, meta);
      data.bytes += 2 * (String(t).length + meta.action.length + JSON.stringify(meta.info).length);
    });
  }
  return chunks;
}
function readoutTable(buffer, what) {
  let table;
  try {
    table = JSON.parse(strFromU8(unzlibSync(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))));
  } catch (error) {
    throw new Error(`${what}: its readout data cannot be read (${error.message})`);
  }
  const valid = table !== null && typeof table === "object" && Object.entries(table).every(
    ([key2, chunk]) => Number.isInteger(Number(key2)) && Array.isArray(chunk?.actions) && Array.isArray(chunk?.infos)
  );
  if (!valid) throw new Error(`${what}: its readout data is not a table of chunks`);
  return table;
}
function ownBytes(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return view.byteLength === view.buffer.byteLength ? bytes : bytes.slice();
}
function deferred(id) {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {
  });
  return { id, resolve, reject, promise };
}

// js/source.ts
var URGENT_REQUEST_BYTES = 4 * 2 ** 20;
var BACKGROUND_REQUEST_BYTES = 256 * 2 ** 10;
var ChunkSource = class {
  constructor(transport, store, onChunk, onError) {
    this.transport = transport;
    this.store = store;
    this.onChunk = onChunk;
    this.onError = onError;
  }
  transport;
  store;
  onChunk;
  onError;
  playhead;
  urgent = 0;
  background = false;
  /** Set when the background fill has nothing left to do or failed; cleared when the episode changes. */
  fillStopped = false;
  /** Requests left unsent until the current frame is painted; `update` again then. */
  holding = false;
  /** Whether chunk `k` is cached or on its way. */
  present(k) {
    return this.store.has(k) || this.transport.isPending(k);
  }
  /**
   * Whether requests wait for the current frame's paint. A big reply arriving while
   * the current frame is inflated competes with it for the main thread (a 480x480
   * window is ~1 MB), so while a paint waits only the current chunk and requests of
   * at most `BACKGROUND_REQUEST_BYTES` (Pong's whole window) are sent; the view
   * calls `update` again once it has painted.
   */
  get held() {
    return this.holding;
  }
  /** Re-plans around the playhead and sends the requests the plan needs. */
  update(playhead) {
    if (playhead.length !== this.playhead?.length) this.fillStopped = false;
    this.playhead = playhead;
    this.holding = false;
    const { step, direction, length, chunkSize, fps, wrap } = playhead;
    if (length <= 0) return;
    const chunkBytes = this.store.averageChunkBytes;
    const budget = this.store.budgets.encoded;
    const known = chunkBytes > 0;
    const ahead = known ? aheadChunks(fps, chunkSize, chunkBytes, budget) : 0;
    const behind = known ? 1 : 0;
    const missing = missingInWindow(
      { step, direction, length, chunkSize, ahead, behind, wrap },
      (k) => this.present(k)
    );
    const perRequest = chunksPerRequest(chunkBytes, URGENT_REQUEST_BYTES, 16);
    const current = chunkOf(step, chunkSize);
    for (const chunks of toRequests(missing, current, perRequest)) {
      const painting = chunks[0] === current;
      if (!painting && playhead.painting && chunks.length * chunkBytes > BACKGROUND_REQUEST_BYTES) this.holding = true;
      else this.request(chunks, false, painting);
    }
    this.fill();
  }
  /** Caches a chunk that arrived, asked for or pushed, and reports it, unless the cache already holds as much. */
  receive(data) {
    if (this.store.put(data)) this.onChunk(data);
  }
  /**
   * The episode grew from `old` to `length` positions: forgets the chunks cut short
   * at the old end (cached or in flight), but keeps those a push already brought
   * whole, so the kernel, likely busy running the cell that grows the episode, is
   * not asked for them.
   */
  grown(old, length, chunkSize) {
    for (let k = chunkOf(old - 1, chunkSize); k <= chunkOf(length - 1, chunkSize); k++) {
      if (this.present(k) && !this.store.holdsAll(k, length)) this.drop(k);
    }
  }
  /** Forgets chunk `k` (cached or in flight): its data changed. */
  drop(k) {
    this.transport.forget(k);
    this.store.drop(k);
    this.fillStopped = false;
  }
  /** Forgets everything cached or in flight (the episode was replaced or re-chunked). */
  reset() {
    this.transport.forgetAll();
    this.store.clear();
    this.fillStopped = false;
  }
  /** `painting`: the request holds the current chunk alone, which a paint waits for. */
  request(chunks, background, painting = false) {
    if (background) this.background = true;
    else this.urgent++;
    const settled = this.transport.fetch(chunks, painting).map(
      (promise) => promise.then(
        (data) => {
          this.receive(data);
          return "ok";
        },
        (error) => {
          if (error instanceof TimeoutError || error instanceof StaleError) return "again";
          this.onError(error);
          return "failed";
        }
      )
    );
    void Promise.all(settled).then((outcomes) => {
      if (background) this.background = false;
      else this.urgent--;
      if (outcomes.includes("failed")) {
        if (background) this.fillStopped = true;
      } else if (this.playhead !== void 0) {
        this.update(this.playhead);
      }
    });
  }
  /** Sends the next background request, if the episode fits and nothing else is waiting. */
  fill() {
    const p = this.playhead;
    if (p === void 0 || this.urgent > 0 || this.background || this.fillStopped || this.holding) return;
    const chunks = numChunks(p.length, p.chunkSize);
    const chunkBytes = this.store.averageChunkBytes;
    if (!fitsBudget(chunkBytes, chunks, this.store.budgets.encoded)) return;
    const max2 = chunksPerRequest(chunkBytes, BACKGROUND_REQUEST_BYTES, 32);
    const batch = backgroundBatch(chunkOf(p.step, p.chunkSize), p.direction, chunks, (k) => this.present(k), max2);
    if (batch.length > 0) this.request(batch, true);
    else this.fillStopped = true;
  }
};

// js/store.ts
var MiB = 2 ** 20;
var DEFAULT_BUDGETS = { encoded: 64 * MiB, inflated: 8 * MiB, decoded: 8 * MiB };
function playbackBudgets(fps, frameBytes) {
  const clamp = (bytes, floor, ceiling) => Math.max(floor, Math.min(ceiling, Math.ceil(bytes)));
  const rgb = frameBytes * 3 / 4;
  return {
    decoded: clamp(DECODED_SECONDS * fps * frameBytes, 8 * MiB, 64 * MiB),
    inflated: clamp(INFLATED_SECONDS * fps * rgb, 8 * MiB, 16 * MiB)
  };
}
var DECODED_SECONDS = 2;
var SPARE_FRAMES = 4;
var INFLATED_SECONDS = 1;
var FrameStore = class {
  constructor(chunkSize, budgets = DEFAULT_BUDGETS) {
    this.chunkSize = chunkSize;
    this.chunks = new ByteLRU(budgets.encoded, (data) => data.bytes);
    this.decoders = new ByteLRU(budgets.inflated, (decoder) => decoder.bytes);
    this.frames = new ByteLRU(
      budgets.decoded,
      (frame) => frame.rgba.byteLength,
      (frame) => this.spare.length < SPARE_FRAMES && this.spare.push(frame.rgba)
    );
  }
  chunkSize;
  chunks;
  decoders;
  frames;
  /** Parts of dropped chunks: decodes still running for them must not fill the cache. */
  retired = /* @__PURE__ */ new WeakSet();
  /**
   * RGBA buffers of frames evicted from the cache, for the next frames decoded. During
   * playback a frame is evicted for every frame decoded; allocating 0.9 MB a frame
   * instead (480x480 at 30 fps: 28 MB/s) made the garbage collector pause playback.
   * Safe because no one keeps a frame: each is painted (copied) as soon as it is got.
   */
  spare = [];
  received = 0;
  receivedBytes = 0;
  get budgets() {
    return { encoded: this.chunks.budget, inflated: this.decoders.budget, decoded: this.frames.budget };
  }
  /** Sizes the caches of inflated parts and decoded frames to playback at `fps` of frames of `frameBytes` RGBA. */
  fitPlayback(fps, frameBytes) {
    const { inflated, decoded } = playbackBudgets(fps, frameBytes);
    this.decoders.resize(inflated);
    this.frames.resize(decoded);
  }
  /** Average bytes of the chunks received so far (0 before the first, at least 1 after). */
  get averageChunkBytes() {
    return this.received === 0 ? 0 : Math.max(1, this.receivedBytes / this.received);
  }
  /**
   * Caches a chunk unless the cached copy already reaches as far: while the episode
   * grows the same chunk arrives again and again (pushed, or answering a request),
   * and a copy cut short must never replace a longer one. Returns whether it was kept.
   */
  put(data) {
    const cached = this.chunks.peek(data.chunk);
    if (cached !== void 0 && reach(cached) >= reach(data)) return false;
    if (cached !== void 0) this.drop(data.chunk);
    this.chunks.set(data.chunk, data);
    this.received++;
    this.receivedBytes += data.bytes;
    return true;
  }
  has(k) {
    return this.chunks.has(k);
  }
  /** Whether chunk `k` is cached with every position it has in an episode of `length`. */
  holdsAll(k, length) {
    const cached = this.chunks.peek(k);
    return cached !== void 0 && reach(cached) >= Math.min((k + 1) * this.chunkSize(), length);
  }
  /** Forgets chunk `k` and everything decoded from it (its data changed, e.g. the episode grew). */
  drop(k) {
    const data = this.chunks.peek(k);
    if (data !== void 0) for (const part of data.parts) this.retired.add(part);
    this.chunks.delete(k);
    this.decoders.deleteWhere((part) => part.chunk === k);
    this.frames.deleteWhere((t) => Math.floor(t / this.chunkSize()) === k);
  }
  clear() {
    for (const k of [...this.chunks.keys()]) this.drop(k);
    this.frames.clear();
    this.decoders.clear();
    this.retired = /* @__PURE__ */ new WeakSet();
  }
  /** Whether the RGBA frame at `t` is decoded and cached. */
  isDecoded(t) {
    return this.frames.has(t);
  }
  /** The kernel's action text and info for position `t`, if its chunk is cached. */
  meta(t) {
    return this.chunks.peek(Math.floor(t / this.chunkSize()))?.steps.get(t);
  }
  /**
   * The frame at `t` without waiting: from the decoded cache, or decoded now if
   * its part is inflated that far (a few ms at most). `null` when `t`'s chunk is
   * cached but holds no frame for it, `undefined` when it is not ready yet.
   */
  frameNow(t) {
    const cached = this.frames.get(t);
    if (cached !== void 0) return cached;
    const part = this.partOf(t);
    if (part === void 0 || part === null) return part;
    const decoder = this.decoders.get(part);
    return decoder?.ready(t) ? this.keep(t, part, decoder.frame(t, this.spareFor(part))) : void 0;
  }
  /**
   * The frame at `t`, inflating its part as far as needed; `undefined` when its
   * chunk is not cached. `urgent` when it is about to be painted.
   */
  async frame(t, urgent) {
    const ready = this.frameNow(t);
    if (ready !== void 0) return ready;
    const part = this.partOf(t);
    if (part === void 0 || part === null) return part;
    let decoder = this.decoders.get(part);
    if (decoder === void 0) {
      decoder = new PartDecoder(part);
      if (!this.retired.has(part)) this.decoders.set(part, decoder);
    }
    await decoder.load(t, urgent);
    return this.frames.get(t) ?? this.keep(t, part, decoder.frame(t, this.spareFor(part)));
  }
  partOf(t) {
    const data = this.chunks.get(Math.floor(t / this.chunkSize()));
    if (data === void 0) return void 0;
    return data.parts.find((p) => t >= p.start && t < p.start + p.count) ?? null;
  }
  /** A spare RGBA buffer the size of `part`'s frames, if there is one. */
  spareFor(part) {
    const bytes = part.width * part.height * 4;
    const i2 = this.spare.findIndex((rgba) => rgba.length === bytes);
    return i2 < 0 ? void 0 : this.spare.splice(i2, 1)[0];
  }
  keep(t, part, frame) {
    if (!this.retired.has(part)) this.frames.set(t, frame);
    return frame;
  }
};
function reach(data) {
  let end = 0;
  for (const part of data.parts) end = Math.max(end, part.start + part.count);
  for (const t of data.steps.keys()) end = Math.max(end, t + 1);
  return end;
}

// js/throttle.ts
var Throttle = class {
  constructor(fn, intervalMs, now = () => performance.now()) {
    this.fn = fn;
    this.intervalMs = intervalMs;
    this.now = now;
  }
  fn;
  intervalMs;
  now;
  last = Number.NEGATIVE_INFINITY;
  timer;
  call() {
    if (this.timer !== void 0) return;
    const wait = this.last + this.intervalMs() - this.now();
    if (wait <= 0) this.run();
    else this.timer = setTimeout(() => this.run(), wait);
  }
  /** Runs a pending trailing call now. */
  flush() {
    if (this.timer !== void 0) this.run();
  }
  run() {
    clearTimeout(this.timer);
    this.timer = void 0;
    this.last = this.now();
    this.fn();
  }
};

// js/timeline.ts
function binMinMax(values, domain, columns) {
  const min = new Float64Array(columns).fill(Number.NaN);
  const max2 = new Float64Array(columns).fill(Number.NaN);
  for (let c = 0; c < columns; c++) {
    const first = Math.floor(c * domain / columns);
    const end = Math.min(values.length, Math.max(first + 1, Math.ceil((c + 1) * domain / columns)));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i2 = first; i2 < end; i2++) {
      if (values[i2] < lo) lo = values[i2];
      if (values[i2] > hi) hi = values[i2];
    }
    if (lo <= hi) {
      min[c] = lo;
      max2[c] = hi;
    }
  }
  return { min, max: max2 };
}
function positionAt(x2, width, length) {
  return Math.max(0, Math.min(length - 1, Math.floor(x2 / width * length)));
}
function cursorX(t, width, length) {
  return (t + 0.5) / length * width;
}
var HEIGHT = 48;
var COLORS = {
  reward: "#4c9a2a",
  penalty: "#c0392b",
  return: "#1f5fbf",
  cursor: "#e67e22",
  extras: ["#8e44ad", "#16a085", "#d35400", "#7f8c8d"]
};
var Strip = class {
  constructor(parent, className, height, cursorColor, draw, onSeek) {
    this.height = height;
    this.cursorColor = cursorColor;
    this.draw = draw;
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = className;
    const seek = (event) => {
      const rect = this.element.getBoundingClientRect();
      if (this.length > 0 && rect.width > 0) onSeek(positionAt(event.clientX - rect.left, rect.width, this.length));
    };
    this.element.addEventListener("pointerdown", (event) => {
      this.element.setPointerCapture(event.pointerId);
      seek(event);
    });
    this.element.addEventListener("pointermove", (event) => {
      if (this.element.hasPointerCapture(event.pointerId)) seek(event);
    });
    this.resizeObserver = new ResizeObserver(() => this.redraw());
    this.resizeObserver.observe(this.element);
  }
  height;
  cursorColor;
  draw;
  element;
  background = document.createElement("canvas");
  resizeObserver;
  length = 0;
  step = 0;
  /** The number of positions changed, or the data the background shows: draw it again. */
  setLength(length) {
    this.length = length;
    this.redraw();
  }
  setCursor(t) {
    this.step = t;
    this.drawCursor();
  }
  dispose() {
    this.resizeObserver.disconnect();
  }
  /** Redraws the background for the current pixel width into the cache. */
  redraw() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.element.clientWidth * ratio));
    const height = Math.round(this.height * ratio);
    for (const canvas of [this.element, this.background]) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
    }
    const c = this.background.getContext("2d");
    c.clearRect(0, 0, width, height);
    if (this.length > 0) this.draw(c, width, height, ratio);
    this.drawCursor();
  }
  drawCursor() {
    const c = this.element.getContext("2d");
    const { width, height } = this.element;
    c.clearRect(0, 0, width, height);
    c.drawImage(this.background, 0, 0);
    if (this.length <= 0) return;
    c.fillStyle = this.cursorColor;
    const x2 = cursorX(this.step, width, this.length);
    const w = Math.max(2, Math.round(window.devicePixelRatio || 1));
    c.fillRect(Math.round(x2 - w / 2), 0, w, height);
  }
};
var Timeline = class {
  strip;
  series;
  length = 0;
  constructor(parent, onSeek) {
    this.strip = new Strip(parent, "aw-timeline", HEIGHT, COLORS.cursor, (c, width, height, ratio) => {
      if (this.series === void 0) return;
      drawBars2(c, binMinMax(this.series.rewards, this.length, width), height);
      [...this.series.extras.values()].forEach((values, i2) => {
        drawLine(c, binMinMax(values, this.length, width), height, COLORS.extras[i2 % COLORS.extras.length], ratio);
      });
      drawLine(c, binMinMax(this.series.returns, this.length, width), height, COLORS.return, 1.5 * ratio);
    }, onSeek);
  }
  get element() {
    return this.strip.element;
  }
  setData(series, length) {
    this.series = series;
    this.length = length;
    this.element.title = ["rewards (bars)", "return (line)", ...[...series.extras.keys()].map((n) => `extra:${n}`)].join(
      ", "
    );
    this.strip.setLength(length);
  }
  setCursor(t) {
    this.strip.setCursor(t);
  }
  dispose() {
    this.strip.dispose();
  }
};
function drawBars2(c, bins, height) {
  const { lo, hi } = range(bins);
  const top = Math.max(hi, 0);
  const bottom = Math.min(lo, 0);
  if (top === bottom) return;
  const y = (v) => (top - v) / (top - bottom) * (height - 2) + 1;
  const zero = y(0);
  for (let x2 = 0; x2 < bins.min.length; x2++) {
    const mn = bins.min[x2];
    const mx = bins.max[x2];
    if (Number.isNaN(mn)) continue;
    if (mx > 0) {
      c.fillStyle = COLORS.reward;
      c.fillRect(x2, y(mx), 1, Math.max(1, zero - y(mx)));
    }
    if (mn < 0) {
      c.fillStyle = COLORS.penalty;
      c.fillRect(x2, zero, 1, Math.max(1, y(mn) - zero));
    }
  }
}
function drawLine(c, bins, height, color, lineWidth, scale = range(bins)) {
  const { lo, hi } = scale;
  if (!Number.isFinite(lo)) return;
  const span = hi - lo || 1;
  const y = (v) => height - 2 - (v - lo) / span * (height - 4);
  c.strokeStyle = color;
  c.lineWidth = lineWidth;
  c.beginPath();
  let started = false;
  for (let x2 = 0; x2 < bins.min.length; x2++) {
    if (Number.isNaN(bins.min[x2])) continue;
    if (started) c.lineTo(x2 + 0.5, y(bins.min[x2]));
    else c.moveTo(x2 + 0.5, y(bins.min[x2]));
    c.lineTo(x2 + 0.5, y(bins.max[x2]));
    started = true;
  }
  c.stroke();
}
function range(bins) {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i2 = 0; i2 < bins.min.length; i2++) {
    if (bins.min[i2] < lo) lo = bins.min[i2];
    if (bins.max[i2] > hi) hi = bins.max[i2];
  }
  return { lo, hi };
}

// js/traits.ts
var Traits = class {
  constructor(model) {
    this.model = model;
  }
  model;
  get step() {
    return Number(this.model.get("step")) || 0;
  }
  /** Number of positions. */
  get length() {
    return Math.max(0, Math.floor(Number(this.model.get("length")) || 0));
  }
  get chunkSize() {
    return Math.max(1, Math.floor(Number(this.model.get("chunk_size")) || 16));
  }
  get hasFrames() {
    return Boolean(this.model.get("has_frames"));
  }
  get series() {
    return this.model.get("series");
  }
  get actionNames() {
    const names = this.model.get("action_names");
    return Array.isArray(names) ? names.map(String) : [];
  }
  get fps() {
    const fps = Number(this.model.get("fps"));
    return fps > 0 ? fps : 30;
  }
  get loop() {
    return Boolean(this.model.get("loop"));
  }
  /** CSS px of the canvas, 0 = auto. */
  get height() {
    return Math.max(0, Number(this.model.get("height")) || 0);
  }
  /** Canvas scale, 0 = auto. */
  get scale() {
    return Math.max(0, Number(this.model.get("scale")) || 0);
  }
  get title() {
    return String(this.model.get("title") ?? "");
  }
};

// js/widget.ts
var SAVE_INTERVAL_MS = 50;
var SAVE_INTERVAL_PLAYING_MS = 250;
var DECODE_AHEAD_STEPPING = 24;
var DECODE_AHEAD_PLAYING = 32;
var DECODE_BEHIND = 4;
var DECODE_AHEAD_STEPPING_BYTES = 4 * 2 ** 20;
var EpisodeView = class {
  constructor(model, el2) {
    this.model = model;
    this.traits = new Traits(model);
    this.root = el2.appendChild(document.createElement("div"));
    this.root.className = "agent-widget";
    this.root.tabIndex = 0;
    this.root.dataset.lmSuppressShortcuts = "true";
    this.root.dataset.pSuppressShortcuts = "true";
    this.title = this.root.appendChild(document.createElement("div"));
    this.title.className = "aw-title";
    const body = this.root.appendChild(document.createElement("div"));
    body.className = "aw-body";
    const main = body.appendChild(document.createElement("div"));
    main.className = "aw-main";
    const stage = main.appendChild(document.createElement("div"));
    stage.className = "aw-stage";
    this.canvas = new FrameCanvas(stage);
    this.controls = new Controls(main, this.root, {
      seek: (t) => this.userGo(t),
      stepBy: (delta) => this.userGo(this.step + delta),
      togglePlay: () => this.togglePlay(),
      setFps: (fps) => this.saveTrait("fps", fps),
      setLoop: (loop) => this.saveTrait("loop", loop)
    });
    this.timeline = new Timeline(main, (t) => this.userGo(t));
    this.readout = new Readout(main);
    this.panels = new PanelCards(model, body, stage, this.outbox);
    this.status = this.root.appendChild(document.createElement("div"));
    this.status.className = "aw-status";
    this.store = new FrameStore(() => this.traits.chunkSize);
    this.transport = new ChunkTransport(model, {
      chunkSize: () => this.traits.chunkSize,
      onPush: (data) => this.source.receive(data),
      onPushError: (error) => this.report(error),
      outbox: this.outbox
    });
    this.source = new ChunkSource(
      this.transport,
      this.store,
      (data) => this.onChunk(data),
      (error) => this.report(error)
    );
    this.decoder = new DecodeAhead(
      this.store,
      (t) => this.store.has(chunkOf(t, this.traits.chunkSize)),
      (error) => this.report(error)
    );
    this.player = new Player({
      ready: (t) => !this.traits.hasFrames || this.store.frameNow(t) !== void 0,
      need: (t) => this.decoder.now(t),
      show: (t) => this.go(t, "player"),
      ended: () => this.pause()
    });
    this.saveStep = new Throttle(
      () => this.outbox.send(() => {
        model.set("step", this.step);
        model.save_changes();
      }),
      () => this.player.playing ? SAVE_INTERVAL_PLAYING_MS : SAVE_INTERVAL_MS
    );
    this.knownLength = this.traits.length;
    if (this.knownLength > 0) this.source.update(this.playhead(this.clamp(this.traits.step)));
    this.series = parseSeries(this.traits.series, this.knownLength);
    this.listen("change:step", () => this.go(this.traits.step, "model"));
    this.listen("change:length", () => this.onLength());
    this.listen("change:series", () => this.onSeries());
    this.listen("change:action_names", () => this.showReadout());
    this.listen("change:has_frames", () => this.paint());
    this.listen("change:chunk_size", () => this.onChunkSize());
    this.listen("change:fps", () => this.onPlayback());
    this.listen("change:loop", () => this.onPlayback());
    this.listen("change:height", () => this.onSize());
    this.listen("change:scale", () => this.onSize());
    this.listen("change:title", () => this.onTitle());
    this.controls.setLength(this.traits.length);
    this.controls.setFps(this.traits.fps);
    this.controls.setLoop(this.traits.loop);
    this.controls.setPlaying(false);
    this.timeline.setData(this.series, this.traits.length);
    this.onSize();
    this.onTitle();
    this.go(this.traits.step, "model");
  }
  model;
  root;
  title;
  status;
  canvas;
  controls;
  timeline;
  readout;
  panels;
  outbox = new Outbox();
  transport;
  store;
  source;
  decoder;
  player;
  saveStep;
  traits;
  listeners = [];
  series;
  knownLength;
  step = -1;
  paintedStep = -1;
  direction = 1;
  /** RGBA bytes of the last painted frame: sizes the decode-ahead window. */
  frameBytes = 0;
  dispose() {
    this.player.pause();
    this.decoder.stop();
    this.transport.dispose();
    this.timeline.dispose();
    this.controls.dispose();
    this.panels.dispose();
    this.saveStep.flush();
    this.outbox.flush();
    for (const [event, callback] of this.listeners) this.model.off(event, callback);
    this.root.remove();
  }
  listen(event, callback) {
    this.model.on(event, callback);
    this.listeners.push([event, callback]);
  }
  /** The user moved the playhead: stop playback and go there. */
  userGo(t) {
    if (this.player.playing) this.pause();
    this.go(t, "user");
  }
  /**
   * Shows position `t`: slider, cursor and readout at once, the frame as soon
   * as it is decoded (immediately when prefetched), then re-plans prefetching.
   */
  go(t, origin) {
    const length = this.traits.length;
    if (length === 0) {
      this.readout.element.textContent = "empty episode";
      return;
    }
    t = this.clamp(t);
    if (t === this.step && origin !== "player") return;
    if (origin === "player") this.direction = 1;
    else if (t !== this.step) this.direction = t > this.step ? 1 : -1;
    this.step = t;
    if (origin === "model" && this.player.playing) this.startPlayback();
    this.controls.setStep(t);
    this.timeline.setCursor(t);
    this.panels.setStep(t);
    this.showReadout();
    this.paint();
    this.plan();
    if (origin !== "model") this.saveStep.call();
    if (origin === "player") this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }
  /** Paints the current position if its frame is ready, else starts decoding it. */
  paint() {
    const t = this.step;
    if (t < 0) return;
    if (!this.traits.hasFrames) {
      this.canvas.placeholder("no frames");
      this.painted(t);
      return;
    }
    const frame = this.store.frameNow(t);
    if (frame === null) {
      this.canvas.placeholder(`no frame at step ${t}`);
      this.painted(t);
    } else if (frame !== void 0) {
      this.canvas.paint(frame);
      if (frame.rgba.byteLength !== this.frameBytes) {
        this.frameBytes = frame.rgba.byteLength;
        this.store.fitPlayback(this.traits.fps, this.frameBytes);
      }
      this.painted(t);
    } else if (this.store.has(chunkOf(t, this.traits.chunkSize))) {
      this.store.frame(t, true).then(
        () => this.step === t && this.paint(),
        (error) => this.report(error)
      );
    }
  }
  painted(t) {
    this.root.dataset.paintedStep = String(t);
    this.paintedStep = t;
    if (this.source.held) this.plan();
  }
  showReadout() {
    if (this.step < 0) return;
    const meta = this.store.meta(this.step);
    this.readout.show(readoutFields(this.step, this.series, meta, this.traits.actionNames, this.traits.length));
  }
  /** Requests the chunks and decodes the frames the playhead will need next. */
  plan() {
    this.source.update(this.playhead(this.step));
    this.planDecode();
  }
  /** Where the chunk source plans around: position `step`, as the view moves and plays. */
  playhead(step) {
    return {
      step,
      direction: this.direction,
      length: this.traits.length,
      chunkSize: this.traits.chunkSize,
      fps: this.traits.fps,
      wrap: this.player.playing && this.traits.loop,
      painting: this.paintedStep !== step
    };
  }
  /** `t` as a position of the episode: rounded, within 0 .. length - 1 (0 when not a number). */
  clamp(t) {
    return Math.max(0, Math.min(this.traits.length - 1, Math.round(Number.isFinite(t) ? t : 0)));
  }
  planDecode() {
    const playing = this.player.playing;
    const frameBytes = Math.max(1, this.frameBytes);
    const affordable = this.frameBytes > 0 ? Math.floor(this.store.budgets.decoded / 2 / frameBytes) : Infinity;
    const stepping = Math.min(DECODE_AHEAD_STEPPING, Math.floor(DECODE_AHEAD_STEPPING_BYTES / frameBytes));
    const ahead = Math.max(1, Math.min(playing ? DECODE_AHEAD_PLAYING : stepping, affordable - DECODE_BEHIND));
    const behind = Math.min(DECODE_BEHIND, ahead);
    const wrap = playing && this.traits.loop;
    this.decoder.schedule(decodePlan(this.step, this.direction, this.traits.length, ahead, behind, wrap));
  }
  onChunk(data) {
    this.status.textContent = "";
    this.root.dataset.cachedChunks = String(this.store.chunks.size);
    if (chunkOf(this.step, this.traits.chunkSize) === data.chunk) {
      this.showReadout();
      this.paint();
    }
    this.planDecode();
  }
  /** Play from here (from the start when at the end without loop), or pause. */
  togglePlay() {
    if (this.player.playing) {
      this.pause();
      return;
    }
    if (!this.traits.loop && this.step >= this.traits.length - 1) this.go(0, "user");
    this.startPlayback();
  }
  /** (Re)starts the clock at the current step with the current fps, length and loop. */
  startPlayback() {
    if (this.traits.length === 0) return;
    this.direction = 1;
    this.player.play(this.step, { fps: this.traits.fps, length: this.traits.length, loop: this.traits.loop });
    this.controls.setPlaying(true);
    this.plan();
  }
  pause() {
    this.player.pause();
    this.controls.setPlaying(false);
    this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }
  saveTrait(name, value) {
    this.model.set(name, value);
    this.model.save_changes();
  }
  /** The episode grew (live) or was replaced: drop what may be stale, keep the rest. */
  onLength() {
    const old = this.knownLength;
    const length = this.traits.length;
    this.knownLength = length;
    this.series = parseSeries(this.traits.series, length);
    if (length < old) {
      this.source.reset();
    } else if (old > 0 && length > old) {
      this.source.grown(old, length, this.traits.chunkSize);
      this.panels.grown(old);
    }
    this.controls.setLength(length);
    this.timeline.setData(this.series, length);
    const step = this.step;
    this.step = -1;
    this.go(Math.min(Math.max(step, 0), length - 1), "model");
  }
  onSeries() {
    this.series = parseSeries(this.traits.series, this.traits.length);
    this.timeline.setData(this.series, this.traits.length);
    this.showReadout();
  }
  onChunkSize() {
    this.source.reset();
    this.paint();
    this.plan();
  }
  onPlayback() {
    if (this.frameBytes > 0) this.store.fitPlayback(this.traits.fps, this.frameBytes);
    this.controls.setFps(this.traits.fps);
    this.controls.setLoop(this.traits.loop);
    if (this.player.playing) this.startPlayback();
  }
  onSize() {
    this.canvas.setSize(this.traits.height, this.traits.scale);
  }
  onTitle() {
    const title = this.traits.title;
    this.title.textContent = title;
    this.title.hidden = title === "";
  }
  report(error) {
    console.warn("agent-widget:", error);
    this.status.textContent = `Could not load frames: ${error.message}`;
  }
};
function render({ model, el: el2 }) {
  const view = new EpisodeView(model, el2);
  return () => view.dispose();
}
var widget_default = { render };
export {
  widget_default as default
};

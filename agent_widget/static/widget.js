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
  placeholder(text) {
    this.resize(PLACEHOLDER.width, PLACEHOLDER.height);
    const c = this.context;
    c.fillStyle = "#eee";
    c.fillRect(0, 0, PLACEHOLDER.width, PLACEHOLDER.height);
    c.fillStyle = "#666";
    c.font = "16px sans-serif";
    c.textAlign = "center";
    c.textBaseline = "middle";
    c.fillText(text, PLACEHOLDER.width / 2, PLACEHOLDER.height / 2);
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

// js/controls.ts
function keyAction(key, shiftKey) {
  switch (key) {
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
    if (target === this.fps || target === this.loop) return;
    if (target.tagName === "BUTTON" && (event.key === " " || event.key === "Enter")) return;
    const action = keyAction(event.key, event.shiftKey);
    if (action === null || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    if (action.kind === "step") this.handlers.stepBy(action.delta);
    else if (action.kind === "toggle") this.handlers.togglePlay();
    else this.handlers.seek(action.to === "first" ? 0 : this.length - 1);
  };
};
function el(tag, className) {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}
function button(className, text, title) {
  const b = el("button", className);
  b.type = "button";
  b.textContent = text;
  b.title = title;
  return b;
}
function input(className, type) {
  const i = el("input", className);
  i.type = type;
  return i;
}

// js/codec.ts
var SLICE_OUTPUT_BYTES = 512 * 1024;
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
function rgbToFrame(rgb, offset, width, height) {
  const pixels = width * height;
  const rgba = new Uint8ClampedArray(pixels * 4);
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
  /** The RGBA frame at absolute position `t`; it must be `ready`. */
  frame(t) {
    const index = this.index(t);
    if (!this.ready(t)) throw new Error(`frame ${t} is not inflated yet`);
    for (; this.undone <= index; this.undone++) undoXor(this.data, this.frameBytes, this.undone);
    return rgbToFrame(this.data, index * this.frameBytes, this.part.width, this.part.height);
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

// js/prefetch.ts
var chunkOf = (t, chunkSize) => Math.floor(t / chunkSize);
var numChunks = (length, chunkSize) => Math.ceil(length / chunkSize);
function missingInWindow(w, present) {
  const count = numChunks(w.length, w.chunkSize);
  const current = chunkOf(w.step, w.chunkSize);
  const wanted = [current];
  for (let i = 1; i <= w.ahead; i++) wanted.push(current + i * w.direction);
  for (let i = 1; i <= w.behind; i++) wanted.push(current - i * w.direction);
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
  for (let i = 0; i < rest.length; i += perRequest) requests.push(rest.slice(i, i + perRequest));
  return requests;
}
function chunksPerRequest(chunkBytes, targetBytes, maxCount) {
  if (chunkBytes <= 0) return 1;
  return Math.max(1, Math.min(maxCount, Math.floor(targetBytes / chunkBytes)));
}
function fitsBudget(chunkBytes, chunks, budget) {
  return chunkBytes > 0 && chunkBytes * chunks <= 0.9 * budget;
}
function backgroundBatch(current, direction, chunks, present, max) {
  const batch = [];
  for (let d = 0; batch.length < max && (current + d < chunks || current - d >= 0); d++) {
    for (const k of d === 0 ? [current] : [current + d * direction, current - d * direction]) {
      if (k >= 0 && k < chunks && !present(k) && batch.length < max) batch.push(k);
    }
  }
  return batch;
}
function decodePlan(step, direction, length, ahead, behind, wrap) {
  const plan = [step];
  for (let i = 1; i <= ahead; i++) plan.push(step + i * direction);
  for (let i = 1; i <= behind; i++) plan.push(step - i * direction);
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
      if (!ready(this.wrap(next))) return { step: null, ended: false };
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
    const onFrame = (now) => {
      if (!started) {
        clock.start(now, step);
        started = true;
      } else {
        const { step: t, ended } = clock.tick(now, this.hooks.ready);
        if (t !== null) this.hooks.show(t);
        if (ended) {
          this.pause();
          this.hooks.ended();
          return;
        }
      }
      this.frame = requestAnimationFrame(onFrame);
    };
    this.frame = requestAnimationFrame(onFrame);
  }
  pause() {
    cancelAnimationFrame(this.frame);
    this.dropped += this.clock?.dropped ?? 0;
    this.clock = void 0;
  }
};

// js/readout.ts
function formatNumber(x) {
  if (x === void 0) return "-";
  if (Number.isInteger(x) || !Number.isFinite(x)) return String(x);
  if (Math.abs(x) < 1e-3) return x.toPrecision(4);
  return String(Number.parseFloat(x.toFixed(4)));
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

// js/series.ts
var EMPTY = new Float64Array(0);
function toFloat64(value) {
  let bytes;
  if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else return EMPTY;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(Math.floor(bytes.byteLength / 8));
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}
function parseSeries(raw) {
  const dict = raw ?? {};
  const extras = /* @__PURE__ */ new Map();
  for (const [name, value] of Object.entries(dict)) {
    if (name.startsWith("extra:")) extras.set(name.slice("extra:".length), toFloat64(value));
  }
  return {
    rewards: toFloat64(dict.rewards),
    returns: toFloat64(dict.returns),
    terminated: toFloat64(dict.terminated),
    truncated: toFloat64(dict.truncated),
    actions: "actions" in dict ? toFloat64(dict.actions) : void 0,
    extras
  };
}

// js/transport.ts
var ChunkTransport = class {
  constructor(model, options) {
    this.model = model;
    this.options = options;
    model.on("msg:custom", this.onMessage);
  }
  model;
  options;
  nextId = 1;
  pending = /* @__PURE__ */ new Map();
  timers = /* @__PURE__ */ new Map();
  onMessage = (msg, buffers) => this.receive(msg, buffers ?? []);
  /** Whether chunk `k` has been asked for and not yet answered. */
  isPending(k) {
    return this.pending.has(k);
  }
  /**
   * Asks for `chunks` in one message (leaving out those already in flight) and
   * returns one promise per requested chunk, in the same order.
   */
  fetch(chunks) {
    const fresh = [...new Set(chunks)].filter((k) => !this.pending.has(k));
    if (fresh.length > 0) {
      const id = this.nextId++;
      for (const k of fresh) this.pending.set(k, deferred(id));
      this.timers.set(
        id,
        setTimeout(() => this.fail(id, new TimeoutError(`chunk request ${id} timed out`)), this.options.timeoutMs ?? 2e4)
      );
      this.model.send({ type: "chunks", id, chunks: fresh });
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
  if (parts.length !== buffers.length) {
    const what = reply.push === true ? "chunk push" : `chunk reply ${reply.id}`;
    throw new Error(`${what} has ${parts.length} parts but ${buffers.length} buffers`);
  }
  const chunks = /* @__PURE__ */ new Map();
  const entry = (k) => {
    let data = chunks.get(k);
    if (data === void 0) chunks.set(k, data = { chunk: k, parts: [], steps: /* @__PURE__ */ new Map(), bytes: 0 });
    return data;
  };
  parts.forEach((header, i) => {
    const payload = ownBytes(buffers[i]);
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
  for (const [key, raw] of Object.entries(reply.steps ?? {})) {
    const t = Number(key);
    const meta = { action: typeof raw?.action === "string" ? raw.action : "", info: raw?.info ?? null };
    const data = entry(Math.floor(t / chunkSize));
    data.steps.set(t, meta);
    data.bytes += 2 * (key.length + meta.action.length + JSON.stringify(meta.info).length);
  }
  return chunks;
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
  /** Whether chunk `k` is cached or on its way. */
  present(k) {
    return this.store.has(k) || this.transport.isPending(k);
  }
  /** Re-plans around the playhead and sends the requests the plan needs. */
  update(playhead) {
    if (playhead.length !== this.playhead?.length) this.fillStopped = false;
    this.playhead = playhead;
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
    for (const chunks of toRequests(missing, chunkOf(step, chunkSize), perRequest)) this.request(chunks, false);
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
  request(chunks, background) {
    if (background) this.background = true;
    else this.urgent++;
    const settled = this.transport.fetch(chunks).map(
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
    if (p === void 0 || this.urgent > 0 || this.background || this.fillStopped) return;
    const chunks = numChunks(p.length, p.chunkSize);
    const chunkBytes = this.store.averageChunkBytes;
    if (!fitsBudget(chunkBytes, chunks, this.store.budgets.encoded)) return;
    const max = chunksPerRequest(chunkBytes, BACKGROUND_REQUEST_BYTES, 32);
    const batch = backgroundBatch(chunkOf(p.step, p.chunkSize), p.direction, chunks, (k) => this.present(k), max);
    if (batch.length > 0) this.request(batch, true);
    else this.fillStopped = true;
  }
};

// js/cache.ts
var ByteLRU = class {
  constructor(budget, sizeOf) {
    this.budget = budget;
    this.sizeOf = sizeOf;
  }
  budget;
  sizeOf;
  // A Map iterates in insertion order; re-inserting on access keeps the oldest first.
  entries = /* @__PURE__ */ new Map();
  total = 0;
  /** Bytes currently held. */
  get bytes() {
    return this.total;
  }
  get size() {
    return this.entries.size;
  }
  has(key) {
    return this.entries.has(key);
  }
  /** Returns the value and marks it most recently used. */
  get(key) {
    const entry = this.entries.get(key);
    if (entry === void 0) return void 0;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }
  /** Returns the value without changing its recency. */
  peek(key) {
    return this.entries.get(key)?.value;
  }
  /**
   * Stores a value as the most recently used, evicting the least recently used
   * until the budget holds. A value bigger than the whole budget is still kept
   * (alone), so the frame on screen can always be cached.
   */
  set(key, value) {
    this.delete(key);
    const bytes = this.sizeOf(value);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.budget || oldest === key) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }
  delete(key) {
    const entry = this.entries.get(key);
    if (entry === void 0) return false;
    this.entries.delete(key);
    this.total -= entry.bytes;
    return true;
  }
  /** Deletes every entry whose key matches. */
  deleteWhere(predicate) {
    for (const key of [...this.entries.keys()]) if (predicate(key)) this.delete(key);
  }
  clear() {
    this.entries.clear();
    this.total = 0;
  }
  keys() {
    return this.entries.keys();
  }
};

// js/store.ts
var DEFAULT_BUDGETS = { encoded: 64 * 2 ** 20, inflated: 32 * 2 ** 20, decoded: 48 * 2 ** 20 };
var FrameStore = class {
  constructor(chunkSize, budgets = DEFAULT_BUDGETS) {
    this.chunkSize = chunkSize;
    this.budgets = budgets;
    this.chunks = new ByteLRU(budgets.encoded, (data) => data.bytes);
    this.decoders = new ByteLRU(budgets.inflated, (decoder) => decoder.bytes);
    this.frames = new ByteLRU(budgets.decoded, (frame) => frame.rgba.byteLength);
  }
  chunkSize;
  budgets;
  chunks;
  decoders;
  frames;
  /** Parts of dropped chunks: decodes still running for them must not fill the cache. */
  retired = /* @__PURE__ */ new WeakSet();
  received = 0;
  receivedBytes = 0;
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
    return decoder?.ready(t) ? this.keep(t, part, decoder.frame(t)) : void 0;
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
    return this.frames.get(t) ?? this.keep(t, part, decoder.frame(t));
  }
  partOf(t) {
    const data = this.chunks.get(Math.floor(t / this.chunkSize()));
    if (data === void 0) return void 0;
    return data.parts.find((p) => t >= p.start && t < p.start + p.count) ?? null;
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
  const max = new Float64Array(columns).fill(Number.NaN);
  for (let c = 0; c < columns; c++) {
    const first = Math.floor(c * domain / columns);
    const end = Math.min(values.length, Math.max(first + 1, Math.ceil((c + 1) * domain / columns)));
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = first; i < end; i++) {
      if (values[i] < lo) lo = values[i];
      if (values[i] > hi) hi = values[i];
    }
    if (lo <= hi) {
      min[c] = lo;
      max[c] = hi;
    }
  }
  return { min, max };
}
function positionAt(x, width, length) {
  return Math.max(0, Math.min(length - 1, Math.floor(x / width * length)));
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
var Timeline = class {
  element;
  background = document.createElement("canvas");
  resizeObserver;
  series;
  length = 0;
  step = 0;
  constructor(parent, onSeek) {
    this.element = parent.appendChild(document.createElement("canvas"));
    this.element.className = "aw-timeline";
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
  setData(series, length) {
    this.series = series;
    this.length = length;
    this.element.title = ["rewards (bars)", "return (line)", ...[...series.extras.keys()].map((n) => `extra:${n}`)].join(
      ", "
    );
    this.redraw();
  }
  setCursor(t) {
    this.step = t;
    this.drawCursor();
  }
  dispose() {
    this.resizeObserver.disconnect();
  }
  /** Re-bins the series for the current pixel width into the cached background. */
  redraw() {
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.element.clientWidth * ratio));
    const height = Math.round(HEIGHT * ratio);
    for (const canvas of [this.element, this.background]) {
      if (canvas.width !== width) canvas.width = width;
      if (canvas.height !== height) canvas.height = height;
    }
    const c = this.background.getContext("2d");
    c.clearRect(0, 0, width, height);
    if (this.series !== void 0 && this.length > 0) {
      drawBars(c, binMinMax(this.series.rewards, this.length, width), height);
      [...this.series.extras.values()].forEach((values, i) => {
        drawLine(c, binMinMax(values, this.length, width), height, COLORS.extras[i % COLORS.extras.length], ratio);
      });
      drawLine(c, binMinMax(this.series.returns, this.length, width), height, COLORS.return, 1.5 * ratio);
    }
    this.drawCursor();
  }
  drawCursor() {
    const c = this.element.getContext("2d");
    const { width, height } = this.element;
    c.clearRect(0, 0, width, height);
    c.drawImage(this.background, 0, 0);
    if (this.length <= 0) return;
    c.fillStyle = COLORS.cursor;
    const x = cursorX(this.step, width, this.length);
    const w = Math.max(2, Math.round(window.devicePixelRatio || 1));
    c.fillRect(Math.round(x - w / 2), 0, w, height);
  }
};
function drawBars(c, bins, height) {
  const { lo, hi } = range(bins);
  const top = Math.max(hi, 0);
  const bottom = Math.min(lo, 0);
  if (top === bottom) return;
  const y = (v) => (top - v) / (top - bottom) * (height - 2) + 1;
  const zero = y(0);
  for (let x = 0; x < bins.min.length; x++) {
    const mn = bins.min[x];
    const mx = bins.max[x];
    if (Number.isNaN(mn)) continue;
    if (mx > 0) {
      c.fillStyle = COLORS.reward;
      c.fillRect(x, y(mx), 1, Math.max(1, zero - y(mx)));
    }
    if (mn < 0) {
      c.fillStyle = COLORS.penalty;
      c.fillRect(x, zero, 1, Math.max(1, y(mn) - zero));
    }
  }
}
function drawLine(c, bins, height, color, lineWidth) {
  const { lo, hi } = range(bins);
  if (!Number.isFinite(lo)) return;
  const span = hi - lo || 1;
  const y = (v) => height - 2 - (v - lo) / span * (height - 4);
  c.strokeStyle = color;
  c.lineWidth = lineWidth;
  c.beginPath();
  let started = false;
  for (let x = 0; x < bins.min.length; x++) {
    if (Number.isNaN(bins.min[x])) continue;
    if (started) c.lineTo(x + 0.5, y(bins.min[x]));
    else c.moveTo(x + 0.5, y(bins.min[x]));
    c.lineTo(x + 0.5, y(bins.max[x]));
    started = true;
  }
  c.stroke();
}
function range(bins) {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < bins.min.length; i++) {
    if (bins.min[i] < lo) lo = bins.min[i];
    if (bins.max[i] > hi) hi = bins.max[i];
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
    this.canvas = new FrameCanvas(this.root);
    this.controls = new Controls(this.root, this.root, {
      seek: (t) => this.userGo(t),
      stepBy: (delta) => this.userGo(this.step + delta),
      togglePlay: () => this.togglePlay(),
      setFps: (fps) => this.saveTrait("fps", fps),
      setLoop: (loop) => this.saveTrait("loop", loop)
    });
    this.timeline = new Timeline(this.root, (t) => this.userGo(t));
    this.readout = new Readout(this.root);
    this.status = this.root.appendChild(document.createElement("div"));
    this.status.className = "aw-status";
    this.store = new FrameStore(() => this.traits.chunkSize);
    this.transport = new ChunkTransport(model, {
      chunkSize: () => this.traits.chunkSize,
      onPush: (data) => this.source.receive(data),
      onPushError: (error) => this.report(error)
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
      show: (t) => this.go(t, "player"),
      ended: () => this.pause()
    });
    this.saveStep = new Throttle(
      () => {
        model.set("step", this.step);
        model.save_changes();
      },
      () => this.player.playing ? SAVE_INTERVAL_PLAYING_MS : SAVE_INTERVAL_MS
    );
    this.series = parseSeries(this.traits.series);
    this.knownLength = this.traits.length;
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
  direction = 1;
  /** RGBA bytes of the last painted frame: sizes the decode-ahead window. */
  frameBytes = 0;
  dispose() {
    this.player.pause();
    this.decoder.stop();
    this.transport.dispose();
    this.timeline.dispose();
    this.controls.dispose();
    this.saveStep.flush();
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
    t = Math.max(0, Math.min(length - 1, Math.round(Number.isFinite(t) ? t : 0)));
    if (t === this.step && origin !== "player") return;
    if (origin === "player") this.direction = 1;
    else if (t !== this.step) this.direction = t > this.step ? 1 : -1;
    this.step = t;
    if (origin === "model" && this.player.playing) this.startPlayback();
    this.controls.setStep(t);
    this.timeline.setCursor(t);
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
      this.frameBytes = frame.rgba.byteLength;
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
  }
  showReadout() {
    if (this.step < 0) return;
    const meta = this.store.meta(this.step);
    this.readout.show(readoutFields(this.step, this.series, meta, this.traits.actionNames, this.traits.length));
  }
  /** Requests the chunks and decodes the frames the playhead will need next. */
  plan() {
    const playing = this.player.playing;
    this.source.update({
      step: this.step,
      direction: this.direction,
      length: this.traits.length,
      chunkSize: this.traits.chunkSize,
      fps: this.traits.fps,
      wrap: playing && this.traits.loop
    });
    this.planDecode();
  }
  planDecode() {
    const playing = this.player.playing;
    const affordable = this.frameBytes > 0 ? Math.floor(this.store.budgets.decoded / 2 / this.frameBytes) : Infinity;
    const ahead = Math.max(1, Math.min(playing ? DECODE_AHEAD_PLAYING : DECODE_AHEAD_STEPPING, affordable - DECODE_BEHIND));
    const wrap = playing && this.traits.loop;
    this.decoder.schedule(decodePlan(this.step, this.direction, this.traits.length, ahead, DECODE_BEHIND, wrap));
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
    if (length < old) {
      this.source.reset();
    } else if (old > 0 && length > old) {
      this.source.grown(old, length, this.traits.chunkSize);
    }
    this.controls.setLength(length);
    this.timeline.setData(this.series, length);
    const step = this.step;
    this.step = -1;
    this.go(Math.min(Math.max(step, 0), length - 1), "model");
  }
  onSeries() {
    this.series = parseSeries(this.traits.series);
    this.timeline.setData(this.series, this.traits.length);
    this.showReadout();
  }
  onChunkSize() {
    this.source.reset();
    this.paint();
    this.plan();
  }
  onPlayback() {
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

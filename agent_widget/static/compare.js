// js/children.ts
function manager(model) {
  return model.widget_manager;
}
function childModel(model, ref) {
  return manager(model).get_model(ref.replace(/^IPY_MODEL_/, ""));
}
function childView(model, child) {
  return manager(model).create_view(child);
}

// js/compare-layout.ts
function toInt32(value) {
  let bytes;
  if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
  else return new Int32Array(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int32Array(Math.floor(bytes.byteLength / 4));
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}
var Alignment = class {
  constructor(maps, lengths) {
    this.maps = maps;
    this.lengths = lengths;
  }
  maps;
  lengths;
  at(child, p) {
    const map = this.maps[child];
    const t = map === void 0 || map.length === 0 ? p : map[Math.max(0, Math.min(p, map.length - 1))];
    return Math.max(0, Math.min(this.lengths[child] - 1, t));
  }
  /** Episode `child`'s series value at each shared position (e.g. its return), length `length`. */
  aligned(child, values, length) {
    const out = new Float64Array(length);
    for (let p = 0; p < length; p++) {
      const t = this.at(child, p);
      out[p] = t < values.length ? values[t] : Number.NaN;
    }
    return out;
  }
};
function endLabel(series, t, length) {
  if (length === 0 || t < length - 1) return "";
  const last = series.terminated.length - 1;
  let how = "ended";
  if (last >= 0 && series.terminated[last] > 0) how = "terminated";
  else if (last >= 0 && series.truncated[last] > 0) how = "truncated";
  return `${how} at t = ${length - 1}`;
}
function gridColumns(count, width, minWidth, fixed) {
  if (count <= 1) return 1;
  if (fixed > 0) return Math.min(fixed, count);
  const fit = Math.max(1, Math.min(count, Math.floor(width / minWidth)));
  const rows = Math.ceil(count / fit);
  return Math.max(1, Math.ceil(count / rows));
}

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
    const x = cursorX(this.step, width, this.length);
    const w = Math.max(2, Math.round(window.devicePixelRatio || 1));
    c.fillRect(Math.round(x - w / 2), 0, w, height);
  }
};
function drawLine(c, bins, height, color, lineWidth, scale = range(bins)) {
  const { lo, hi } = scale;
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

// js/compare-chart.ts
var HEIGHT = 72;
var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
var CURSOR = "#444";
var DIVERGENCE = "#e91e63";
function sharedRange(lines) {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const values of lines) {
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return { lo, hi };
}
var ReturnsChart = class {
  strip;
  lines = [];
  length = 0;
  divergence = null;
  constructor(parent, onSeek) {
    this.strip = new Strip(parent, "aw-compare-chart", HEIGHT, CURSOR, (c, width, height, ratio) => {
      const scale = sharedRange(this.lines);
      this.lines.forEach((values, i) => {
        const bins = binMinMax(values, this.length, width);
        drawLine(c, bins, height, PALETTE[i % PALETTE.length], 1.5 * ratio, scale);
      });
      if (this.divergence === null) return;
      c.fillStyle = DIVERGENCE;
      const x = Math.round(cursorX(this.divergence, width, this.length) - ratio);
      for (let y = 0; y < height; y += 6 * ratio) c.fillRect(x, y, Math.max(2, Math.round(2 * ratio)), 3 * ratio);
    }, onSeek);
    this.strip.element.title = "return of each episode; dashed: the first step where their actions differ";
  }
  get element() {
    return this.strip.element;
  }
  /** `lines[i]` is episode i's return at each of the `length` shared positions. */
  setData(lines, length, divergence) {
    this.lines = lines;
    this.length = length;
    this.divergence = divergence;
    this.strip.setLength(length);
  }
  setCursor(t) {
    this.strip.setCursor(t);
  }
  dispose() {
    this.strip.dispose();
  }
};

// js/dom.ts
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
  for (let i = 0; i < out.length; i++) out[i] = read(view, i * size);
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

// js/compare.ts
var SAVE_INTERVAL_MS = 50;
var SAVE_INTERVAL_PLAYING_MS = 250;
var MIN_CELL_PX = 280;
var CompareView = class {
  constructor(model, parent) {
    this.model = model;
    this.root = parent.appendChild(el("div", "aw-compare"));
    this.root.tabIndex = 0;
    this.root.dataset.lmSuppressShortcuts = "true";
    this.root.dataset.pSuppressShortcuts = "true";
    this.title = this.root.appendChild(el("div", "aw-title"));
    this.grid = this.root.appendChild(el("div", "aw-compare-grid"));
    this.grid.textContent = "loading\u2026";
    const shared = this.root.appendChild(el("div", "aw-shared"));
    this.controls = new Controls(shared, this.root, {
      seek: (t) => this.userGo(t),
      stepBy: (delta) => this.userGo(this.step + delta),
      togglePlay: () => this.togglePlay(),
      setFps: (fps) => this.saveTrait("fps", fps),
      setLoop: (loop) => this.saveTrait("loop", loop)
    });
    this.chart = new ReturnsChart(shared, (t) => this.userGo(t));
    const footer = shared.appendChild(el("div", "aw-compare-footer"));
    this.legend = footer.appendChild(el("div", "aw-legend"));
    this.jump = footer.appendChild(button("aw-jump-divergence", "", "Go to the first step where the actions differ"));
    this.jump.addEventListener("click", () => {
      const t = this.divergence;
      if (t !== null) this.userGo(t);
    });
    this.status = this.root.appendChild(el("div", "aw-status"));
    this.root.addEventListener("keydown", this.onChildKey, { capture: true });
    this.player = new Player({
      ready: () => this.childrenPainted(),
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
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(this.root);
    this.listen("change:step", () => this.go(Number(model.get("step")) || 0, "model"));
    this.listen("change:fps", () => this.onPlayback());
    this.listen("change:loop", () => this.onPlayback());
    this.listen("change:columns", () => this.layout());
    this.listen("change:title", () => this.onTitle());
    this.onTitle();
    this.onPlayback();
    this.controls.setLength(this.length);
    this.controls.setPlaying(false);
    this.attachChildren().catch((error) => this.report(error));
  }
  model;
  root;
  title;
  grid;
  status;
  controls;
  chart;
  legend;
  jump;
  player;
  saveStep;
  resizeObserver;
  listeners = [];
  children = [];
  alignment = new Alignment([], []);
  step = -1;
  disposed = false;
  dispose() {
    this.disposed = true;
    this.player.pause();
    this.saveStep.flush();
    this.controls.dispose();
    this.chart.dispose();
    this.resizeObserver.disconnect();
    this.root.removeEventListener("keydown", this.onChildKey, { capture: true });
    for (const [event, callback] of this.listeners) this.model.off(event, callback);
    for (const child of this.children) child.view.remove();
    this.root.remove();
  }
  get length() {
    return Math.max(0, Math.floor(Number(this.model.get("length")) || 0));
  }
  get divergence() {
    const t = this.model.get("divergence");
    return typeof t === "number" ? t : null;
  }
  listen(event, callback) {
    this.model.on(event, callback);
    this.listeners.push([event, callback]);
  }
  /** Creates a view of each child viewer, in a cell of the grid, then shows the step. */
  async attachChildren() {
    const refs = this.model.get("viewers");
    const models = await Promise.all(refs.map((ref) => childModel(this.model, ref)));
    const views = await Promise.all(models.map((child) => childView(this.model, child)));
    if (this.disposed) {
      for (const view of views) view.remove();
      return;
    }
    this.grid.textContent = "";
    this.children = models.map((model, i) => {
      const cell = this.grid.appendChild(el("div", "aw-cell"));
      cell.appendChild(views[i].el);
      const ended = cell.appendChild(el("div", "aw-ended"));
      const length = Math.max(0, Math.floor(Number(model.get("length")) || 0));
      return { model, view: views[i], series: parseSeries(model.get("series"), length), length, ended };
    });
    const maps = this.model.get("positions").map(toInt32);
    this.alignment = new Alignment(
      maps,
      this.children.map((c) => c.length)
    );
    this.showLegend();
    this.chart.setData(
      this.children.map((c, i) => this.alignment.aligned(i, c.series.returns, this.length)),
      this.length,
      this.divergence
    );
    this.jump.hidden = this.divergence === null;
    this.jump.textContent = `Jump to divergence (t = ${this.divergence})`;
    this.layout();
    this.go(Number(this.model.get("step")) || 0, "model");
  }
  showLegend() {
    const labels = this.model.get("labels") ?? [];
    this.legend.textContent = "";
    this.children.forEach((child, i) => {
      const item = this.legend.appendChild(el("span", "aw-legend-item"));
      const swatch = item.appendChild(el("span", "aw-swatch"));
      swatch.style.background = PALETTE[i % PALETTE.length];
      const total = child.series.returns[child.series.returns.length - 1] ?? 0;
      item.append(`${labels[i] ?? i}: return ${Number.parseFloat(total.toFixed(4))}`);
    });
  }
  layout() {
    const fixed = Math.max(0, Math.floor(Number(this.model.get("columns")) || 0));
    const columns = gridColumns(this.children.length, this.root.clientWidth, MIN_CELL_PX, fixed);
    this.grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
  }
  userGo(t) {
    if (this.player.playing) this.pause();
    this.go(t, "user");
  }
  /** Shows shared position `t`: every child at its aligned position, ended ones labelled. */
  go(t, origin) {
    const length = this.length;
    if (length === 0 || this.children.length === 0) return;
    t = Math.max(0, Math.min(length - 1, Math.round(Number.isFinite(t) ? t : 0)));
    if (t === this.step && origin !== "player") return;
    this.step = t;
    if (origin === "model" && this.player.playing) this.startPlayback();
    this.controls.setStep(t);
    this.chart.setCursor(t);
    this.children.forEach((child, i) => {
      const position = this.alignment.at(i, t);
      child.model.set("step", position);
      child.ended.textContent = endLabel(child.series, position, child.length);
    });
    this.root.dataset.step = String(t);
    if (origin !== "model") this.saveStep.call();
  }
  /** Whether every child has painted the position it was last sent to (playback waits for it). */
  childrenPainted() {
    return this.children.every((child) => {
      const root = child.view.el.querySelector(".agent-widget");
      return root === null || root.dataset.paintedStep === String(child.model.get("step"));
    });
  }
  togglePlay() {
    if (this.player.playing) {
      this.pause();
      return;
    }
    if (!this.loop && this.step >= this.length - 1) this.go(0, "user");
    this.startPlayback();
  }
  get loop() {
    return Boolean(this.model.get("loop"));
  }
  startPlayback() {
    if (this.length === 0) return;
    const fps = Number(this.model.get("fps")) || 30;
    this.player.play(this.step, { fps, length: this.length, loop: this.loop });
    this.controls.setPlaying(true);
  }
  pause() {
    this.player.pause();
    this.controls.setPlaying(false);
    this.root.dataset.droppedFrames = String(this.player.droppedFrames);
  }
  onPlayback() {
    this.controls.setFps(Number(this.model.get("fps")) || 30);
    this.controls.setLoop(this.loop);
    if (this.player.playing) this.startPlayback();
  }
  saveTrait(name, value) {
    this.model.set(name, value);
    this.model.save_changes();
  }
  onTitle() {
    const title = String(this.model.get("title") ?? "");
    this.title.textContent = title;
    this.title.hidden = title === "";
  }
  /** A step key pressed inside a child view goes to the shared controls instead of that child. */
  onChildKey = (event) => {
    const target = event.target;
    if (!this.grid.contains(target) || target.tagName === "INPUT") return;
    if (keyAction(event.key, event.shiftKey) === null) return;
    event.stopPropagation();
    event.preventDefault();
    const { key, shiftKey, altKey, ctrlKey, metaKey } = event;
    this.root.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey, altKey, ctrlKey, metaKey, bubbles: true }));
  };
  report(error) {
    console.warn("agent-widget compare:", error);
    this.status.textContent = `Could not show the comparison: ${error.message}`;
  }
};
function render({ model, el: el2 }) {
  const view = new CompareView(model, el2);
  return () => view.dispose();
}
var compare_default = { render };
export {
  compare_default as default
};

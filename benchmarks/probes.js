// In-page probes for benchmarks/viewer.py, installed before JupyterLab loads
// (Playwright's add_init_script). Times are performance.now() in the page, so the
// input and the paint are timed on the same clock, with no CDP round trip in between.
(() => {
  // Bytes through every websocket of the page (the kernel's included), both ways, and
  // when the recent messages big enough to carry a frame arrived (status messages
  // are ~550 B).
  const FRAME_MESSAGE_BYTES = 1000;
  // `requests`: every widget request (a custom message with an id) and when its answer
  // (the first custom message back with that id) arrived: what is in flight when.
  const wire = { in: 0, out: 0, arrivals: [], departures: [], requests: [] };
  const size = (data) => (typeof data === "string" ? data.length : (data.byteLength ?? data.size ?? 0));
  const pending = new Map();
  const text = new TextDecoder();
  /** A comm message's custom content and comm id, or null (JSON, or the v1 binary protocol). */
  const custom = (data) => {
    let message;
    try {
      if (typeof data === "string") message = JSON.parse(data);
      else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
        const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const at = (i) => Number(view.getBigUint64(8 * (i + 1), true));
        const part = (i) => JSON.parse(text.decode(bytes.subarray(at(i), at(i + 1))));
        const header = part(1);
        if (header.msg_type !== "comm_msg") return null;
        message = { header, content: part(4) };
      } else return null;
    } catch {
      return null;
    }
    if (message.header?.msg_type !== "comm_msg") return null;
    const body = message.content?.data?.content;
    return message.content.data?.method === "custom" && body ? { comm: message.content.comm_id, body } : null;
  };
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const now = performance.now();
        const bytes = size(event.data);
        wire.in += bytes;
        const reply = custom(event.data);
        const key = reply && `${reply.comm}/${reply.body.id}`;
        if (reply && pending.has(key)) {
          Object.assign(pending.get(key), { replied: now, replyType: reply.body.type, bytes });
          pending.delete(key);
        }
        if (bytes < FRAME_MESSAGE_BYTES) return;
        wire.arrivals.push(now);
        if (wire.arrivals.length > 256) wire.arrivals.splice(0, 128);
      });
    }
    send(data) {
      const now = performance.now();
      wire.out += size(data);
      wire.departures.push(now);
      if (wire.departures.length > 256) wire.departures.splice(0, 128);
      const request = custom(data);
      if (request && typeof request.body.id === "number") {
        const chunks = Array.isArray(request.body.chunks) ? request.body.chunks.length : null;
        const entry = { type: request.body.type, sent: now, replied: null, chunks };
        pending.set(`${request.comm}/${request.body.id}`, entry);
        wire.requests.push(entry);
        if (wire.requests.length > 4096) wire.requests.splice(0, 2048);
      }
      super.send(data);
    }
  };

  const notebook = () => window.jupyterapp.shell.currentWidget;
  const cellNode = (i) => notebook().content.widgets[i].node;
  const kernel = () => notebook().sessionContext.session.kernel;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** performance.now() once `predicate()` holds: checked now and after every DOM change under `node`. */
  function until(node, predicate, timeout) {
    return new Promise((resolve, reject) => {
      let observer;
      let timer;
      const finish = () => {
        observer?.disconnect();
        clearTimeout(timer);
      };
      const check = () => {
        if (!predicate()) return false;
        finish();
        resolve(performance.now());
        return true;
      };
      if (check()) return;
      observer = new MutationObserver(check);
      observer.observe(node, { subtree: true, childList: true, attributes: true });
      timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeout} ms`));
      }, timeout);
    });
  }

  /** performance.now() once an image added (or re-pointed) under `node` has decoded: ready to paint. */
  function nextImage(node, timeout) {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = () => {
        done = true;
        observer.disconnect();
        clearTimeout(timer);
      };
      const candidate = (img) =>
        img.decode().then(
          () => {
            if (done || !img.isConnected) return;
            finish();
            resolve(performance.now());
          },
          () => {}, // replaced before it decoded: a later image will do
        );
      const observer = new MutationObserver((records) => {
        for (const record of records) {
          if (record.type === "attributes" && record.target instanceof HTMLImageElement) candidate(record.target);
          for (const added of record.addedNodes) {
            if (added instanceof HTMLImageElement) candidate(added);
            else if (added.querySelectorAll) added.querySelectorAll("img").forEach(candidate);
          }
        }
      });
      observer.observe(node, { subtree: true, childList: true, attributes: true, attributeFilter: ["src"] });
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no new image after ${timeout} ms`));
      }, timeout);
    });
  }

  const press = (target, key) => target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  const slide = (input, t) => {
    input.value = String(t);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const root = (node) => node.querySelector(".agent-widget");
  const painted = (node, t, timeout) => until(root(node), () => root(node).dataset.paintedStep === String(t), timeout);
  const image = (node, _t, timeout) => nextImage(node, timeout);

  /** Per variant: how an input is given, and how its new frame is seen. */
  const variants = {
    ours: {
      shown: painted,
      step: (node) => press(root(node), "ArrowRight"),
      drag: (node, t) => slide(node.querySelector("input.aw-slider"), t),
      jump: (node, t) => slide(node.querySelector("input.aw-slider"), t),
    },
    // ipywidgets' IntSlider: arrow keys on its handle (noUiSlider), the same code path
    // as dragging it; a jump types the step into the slider's readout.
    slider: {
      shown: image,
      step: (node) => press(node.querySelector(".noUi-handle"), "ArrowRight"),
      jump: (node, t) => {
        const readout = node.querySelector(".widget-readout");
        readout.textContent = String(t);
        readout.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", keyCode: 13, bubbles: true }));
      },
    },
    // to_jshtml's own controls.
    jshtml: {
      shown: image,
      step: (node) => node.querySelector('button[title="Next frame"]').click(),
      jump: (node, t) => slide(node.querySelector("input.anim-slider"), t),
    },
  };

  /** Waits until the kernel has been idle for `quietMs` (its replies and status messages are in). */
  async function settle(quietMs, timeout = 60000) {
    const start = performance.now();
    let since = start;
    while (performance.now() - since < quietMs) {
      if (performance.now() - start > timeout) throw new Error(`the kernel was not idle for ${timeout} ms`);
      await sleep(5);
      if (kernel().status !== "idle") since = performance.now();
    }
  }

  window.__bench = {
    wire,

    /** Appends a code cell; returns its index. */
    addCell(source) {
      const cells = notebook().content.model.sharedModel;
      const index = cells.cells.length;
      cells.insertCell(index, { cell_type: "code", source });
      return index;
    },

    clearOutput(i) {
      notebook().content.widgets[i].model.outputs.clear();
    },

    /**
     * Runs cell `i`; resolves with ms from the run to its first frame ("ours", "image" or
     * "none"), once it has run. Leaves `lastRun`: when it started and painted first, and
     * for ours each change of the view's count of cached chunks, [time, count], until
     * the next run.
     */
    async runCell(i, first, timeout) {
      this.clearOutput(i);
      this.lastRun?.observer.disconnect();
      const node = cellNode(i);
      const cached = [];
      const observer = new MutationObserver(() => {
        const count = root(node)?.dataset.cachedChunks;
        if (count !== undefined && count !== cached.at(-1)?.[1]) cached.push([performance.now(), count]);
      });
      if (first === "ours") observer.observe(node, { subtree: true, childList: true, attributes: true });
      const shown =
        first === "ours"
          ? until(node, () => node.querySelector(".agent-widget[data-painted-step]") !== null, timeout)
          : first === "image"
            ? nextImage(node, timeout)
            : null;
      const content = notebook().content;
      content.activeCellIndex = i;
      const start = performance.now();
      this.lastRun = { observer, start, firstFrame: null, cached };
      const ran = window.jupyterapp.commands.execute("notebook:run-cell");
      const end = shown === null ? null : await shown;
      this.lastRun.firstFrame = end;
      await ran;
      return end === null ? null : end - start;
    },

    /** The last run's times (see runCell) and the requests sent since it started; stops watching its view. */
    lastRunLog() {
      const { observer, start, firstFrame, cached } = this.lastRun;
      observer.disconnect();
      const requests = wire.requests.filter((r) => r.sent >= start).map((r) => ({ ...r }));
      return { start, firstFrame, cached: cached.map(([t, n]) => [t, Number(n)]), requests, now: performance.now() };
    },

    /**
     * ms from `action` on `variant` in cell `cell` to its new frame; websocket bytes
     * received by the time the kernel is quiet; ms to the first message big enough
     * to carry a frame, when one arrived before the paint (null for a cache hit), and
     * to the page's first message out before it.
     */
    async measure(cell, variant, action, t, timeout, quietMs) {
      const node = cellNode(cell);
      const v = variants[variant];
      const before = wire.in;
      const shown = v.shown(node, t, timeout);
      const start = performance.now();
      v[action](node, t);
      const end = await shown;
      const reply = wire.arrivals.find((time) => time >= start && time <= end);
      const sent = wire.departures.find((time) => time >= start && time <= (reply ?? -1));
      await settle(quietMs);
      return {
        ms: end - start,
        bytes: wire.in - before,
        replyMs: reply === undefined ? null : reply - start,
        sentMs: sent === undefined ? null : sent - start,
      };
    },

    /**
     * ms of one comm round trip through the Echo widget in cell `cell`, replying with `size`
     * bytes, or (`size` "frame") with one frame, inflated and painted on its canvas.
     */
    async echo(cell, size, quietMs) {
      const before = wire.in;
      const echo = cellNode(cell).querySelector(".bench-echo");
      const ms = await (size === "frame" ? echo.benchFrame() : echo.benchEcho(size));
      await settle(quietMs);
      return { ms, bytes: wire.in - before };
    },

    /** The viewer's attribute `name` in cell `cell` (painted-step, cached-chunks, ...). */
    attribute(cell, name) {
      return root(cellNode(cell))?.getAttribute(name) ?? null;
    },

    /** ms from now until the viewer in cell `cell` has `name` equal to `value`. */
    async waitAttribute(cell, name, value, timeout) {
      const node = root(cellNode(cell));
      const start = performance.now();
      return (await until(node, () => node.getAttribute(name) === String(value), timeout)) - start;
    },

    /**
     * Steps the viewer in cell `cell` (arrow key, a step every 20 ms after each paint)
     * while its background fill runs: the fill's ms from now, and each step's latency.
     */
    async stepsDuringFill(cell, chunks, maxSteps, timeout) {
      const node = cellNode(cell);
      const viewer = root(node);
      const full = () => viewer.dataset.cachedChunks === String(chunks);
      const start = performance.now();
      const filled = until(viewer, full, timeout);
      const steps = [];
      while (steps.length < maxSteps && !full()) {
        const shown = painted(node, Number(viewer.dataset.paintedStep) + 1, timeout);
        const begin = performance.now();
        variants.ours.step(node);
        steps.push((await shown) - begin);
        await sleep(20);
      }
      return { fillMs: (await filled) - start, steps };
    },

    /** Sets the viewer's playback speed through its fps box. */
    setFps(cell, fps) {
      const input = cellNode(cell).querySelector("input.aw-fps");
      input.value = String(fps);
      input.dispatchEvent(new Event("change", { bubbles: true }));
    },

    /**
     * Plays for `seconds` from what is shown now (variant "ours" or "jshtml") and
     * reports what was painted after the first second: frames per second, the
     * longest gap, animation frames per second (the display's own rate), and for
     * ours the frames its clock dropped.
     */
    async play(cell, variant, seconds) {
      const node = cellNode(cell);
      const ours = variant === "ours";
      const button = (title) => node.querySelector(ours ? "button.aw-play" : `button[title="${title}"]`);
      const paints = [];
      const seen = new MutationObserver((records) => {
        const now = performance.now();
        for (const r of records) if (ours || r.target instanceof HTMLImageElement) paints.push(now);
      });
      seen.observe(ours ? root(node) : node, {
        subtree: true,
        attributes: true,
        attributeFilter: [ours ? "data-painted-step" : "src"],
      });
      const frames = [];
      let animating = true;
      const tick = (now) => {
        frames.push(now);
        if (animating) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      const dropped = () => Number(root(node)?.dataset.droppedFrames ?? 0);
      const start = performance.now();
      button("Play").click();
      await sleep(1000);
      const droppedBefore = ours ? dropped() : null;
      const from = performance.now();
      await sleep((seconds - 1) * 1000);
      const to = performance.now();
      const droppedAfter = ours ? dropped() : null;
      // Ours says whether it was still playing; pause it only then.
      const stillPlaying = ours ? button().textContent === "Pause" : null;
      if (!ours || stillPlaying) button("Pause").click();
      animating = false;
      seen.disconnect();
      const inWindow = (times) => times.filter((time) => time >= from && time <= to);
      const shown = inWindow(paints);
      const gaps = shown.slice(1).map((time, i) => time - shown[i]);
      const perSecond = (times) => (inWindow(times).length * 1000) / (to - from);
      return {
        fps: perSecond(paints),
        displayFps: perSecond(frames),
        maxGapMs: gaps.length ? Math.max(...gaps) : null,
        firstSecondFrames: paints.filter((time) => time < from).length,
        firstPaintMs: paints.length ? paints[0] - start : null,
        lastPaintMs: paints.length ? paints[paints.length - 1] - start : null,
        dropped: droppedBefore === null ? null : droppedAfter - droppedBefore,
        stillPlaying,
        endStep: ours ? Number(root(node).dataset.paintedStep) : null,
        status: ours ? (node.querySelector(".aw-status")?.textContent ?? "") : null,
      };
    },
  };
})();

"""What a notebook user has today to step through frames, built in the benchmark's kernel.

(a) ``interact`` + ``IntSlider`` redrawing ``plt.imshow(frames[t])``;
(b) ``ipywidgets.Image`` (PNG bytes) + ``IntSlider.observe``;
(c) base64 PNG in a JSON string (an ``ipywidgets.HTML`` ``<img>``), the transport of
    TensorBoard's original Agent plugin;
(d) ``FuncAnimation(...).to_jshtml()``;
(e) the floor: :class:`Echo`, a bare comm round trip on the same kernel; (e') the same
    bringing a chunk's bytes back; (e'') bringing one frame back, inflated and painted.

Each is written as a user would write it: PNG is encoded on demand with Pillow's
defaults, ``plt.imshow`` uses matplotlib's default figure. The one kindness is in
(d): the figure is sized to the frame (one PNG pixel per frame pixel, no axes), the
smallest and fastest ``to_jshtml`` can be.
"""

from __future__ import annotations

import base64
import io
import json
import zlib
from collections.abc import Callable
from typing import Any

import anywidget
import ipywidgets
import numpy as np
from PIL import Image


def png(frame: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(frame).save(buffer, format="png")
    return buffer.getvalue()


def interact_imshow(frames: np.ndarray) -> None:
    """(a): displays itself, as ``interact`` does."""
    import matplotlib.pyplot as plt

    def show(t: int) -> None:
        plt.imshow(frames[t])
        plt.show()

    ipywidgets.interact(show, t=ipywidgets.IntSlider(0, 0, len(frames) - 1))


def _slider_showing(
    frames: np.ndarray, view: ipywidgets.DOMWidget, field: str, encode: Callable[[np.ndarray], Any]
) -> ipywidgets.VBox:
    slider = ipywidgets.IntSlider(0, 0, len(frames) - 1)

    def update(change: dict) -> None:
        setattr(view, field, encode(frames[change["new"]]))

    slider.observe(update, "value")
    update({"new": 0})
    return ipywidgets.VBox([slider, view])


def image_slider(frames: np.ndarray) -> ipywidgets.VBox:
    """(b)"""
    return _slider_showing(frames, ipywidgets.Image(format="png"), "value", png)


def base64_slider(frames: np.ndarray) -> ipywidgets.VBox:
    """(c)"""

    def html(frame: np.ndarray) -> str:
        return f'<img src="data:image/png;base64,{base64.b64encode(png(frame)).decode()}">'

    return _slider_showing(frames, ipywidgets.HTML(), "value", html)


def jshtml(frames: np.ndarray, fps: float) -> Any:
    """(d): the whole animation as one HTML output, every frame a base64 PNG in it."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML
    from matplotlib.animation import FuncAnimation

    height, width = frames.shape[1:3]
    figure = plt.figure(figsize=(width / 100, height / 100), dpi=100)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.axis("off")
    image = axes.imshow(frames[0])
    animation = FuncAnimation(
        figure, lambda t: image.set_data(frames[t]), frames=len(frames), interval=1000 / fps
    )
    html = animation.to_jshtml()
    plt.close(figure)
    return HTML(html)


class Echo(anywidget.AnyWidget):
    """(e): answers each message at once, with ``size`` bytes of buffer when asked to;
    the page times ``el.benchEcho(size)`` from send to the reply's handler.

    (e''): ``el.benchFrame()`` asks for one of ``frames`` instead (deflated ahead, so the
    kernel does nothing), inflates it natively and puts it on a canvas: the least a jump
    to a frame not in the page costs on this stack. The frame goes as RGBA at zlib's
    best level, smaller than the viewer's RGB parts and with nothing to expand in the
    page; sent raw it would cost more on the wire than inflating saves (a 480x480
    frame: 900 KB, where a 700 KB echo took ~26 ms against ~9 for an empty one).
    """

    _esm = """
    export default {
      render({ model, el }) {
        const waiting = new Map();
        let next = 0;
        const canvas = document.createElement("canvas");
        const context = canvas.getContext("2d");
        const onReply = (msg, buffers) => {
          const done = waiting.get(msg.id);
          if (done) { waiting.delete(msg.id); done(msg, buffers); }
        };
        const ask = (request) => new Promise((resolve) => {
          const id = ++next;
          waiting.set(id, (msg, buffers) => resolve({ msg, buffers }));
          model.send({ id, ...request });
        });
        model.on("msg:custom", onReply);
        el.classList.add("bench-echo");
        el.append("echo", canvas);
        el.benchEcho = async (size) => {
          const start = performance.now();
          await ask({ size });
          return performance.now() - start;
        };
        el.benchFrame = async () => {
          const start = performance.now();
          const { msg, buffers } = await ask({ frame: true });
          const stream = new DecompressionStream("deflate");
          const writer = stream.writable.getWriter();
          const payload = buffers[0];
          writer.write(new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength));
          writer.close();
          const reader = stream.readable.getReader();
          const pieces = [];
          for (let read = await reader.read(); !read.done; read = await reader.read()) {
            pieces.push(read.value);
          }
          const rgba = new Uint8ClampedArray(pieces.reduce((n, piece) => n + piece.byteLength, 0));
          pieces.reduce((at, piece) => (rgba.set(piece, at), at + piece.byteLength), 0);
          if (canvas.width !== msg.width) canvas.width = msg.width;
          if (canvas.height !== msg.height) canvas.height = msg.height;
          context.putImageData(new ImageData(rgba, msg.width, msg.height), 0, 0);
          return performance.now() - start;
        };
        return () => model.off("msg:custom", onReply);
      },
    };
    """

    def __init__(self, frames: np.ndarray | None = None, samples: int = 8) -> None:
        super().__init__()
        chosen = [] if frames is None else frames[:: max(1, len(frames) // samples)][:samples]
        self._frames = [(frame.shape[:2], zlib.compress(_rgba(frame), 9)) for frame in chosen]
        self._sent = 0
        self.on_msg(self._echo)

    def _echo(self, _widget: object, content: dict, _buffers: object) -> None:
        if content.get("frame") and self._frames:
            (height, width), payload = self._frames[self._sent % len(self._frames)]
            self._sent += 1
            self.send({"id": content["id"], "width": width, "height": height}, [payload])
            return
        size = int(content.get("size") or 0)
        self.send({"id": content["id"]}, [bytes(size)] if size else None)


def _rgba(frame: np.ndarray) -> bytes:
    """An HxWx3 frame's bytes as opaque RGBA, as a canvas takes them."""
    alpha = np.full((*frame.shape[:2], 1), 255, np.uint8)
    return np.concatenate([frame, alpha], axis=2).tobytes()


class SendCounter:
    """Counts what a widget sends to the front end: replies, their JSON and buffer bytes,
    and the frames their parts carry (the viewer's wire cost, measured at the kernel)."""

    def __init__(self, widget: ipywidgets.Widget) -> None:
        self.replies = self.json_bytes = self.buffer_bytes = self.payload_bytes = self.frames = 0
        send = widget.send

        def counted(content: dict, buffers: list | None = None) -> None:
            buffers = list(buffers or [])
            # The frame payloads: a buffer per part, then the index (headers, readout data).
            parts = json.loads(zlib.decompress(buffers[-1]))["parts"] if buffers else []
            self.replies += 1
            self.json_bytes += len(json.dumps(content))
            self.buffer_bytes += sum(len(b) for b in buffers)
            self.payload_bytes += sum(len(b) for b in buffers[: len(parts)])
            self.frames += sum(part["count"] for part in parts)
            send(content, buffers)

        widget.send = counted  # type: ignore[method-assign]

    def totals(self) -> dict[str, int]:
        return {
            "replies": self.replies,
            "json_bytes": self.json_bytes,
            "buffer_bytes": self.buffer_bytes,
            "payload_bytes": self.payload_bytes,
            "frames": self.frames,
        }


def saved_state_bytes(widget: ipywidgets.Widget) -> int:
    """Bytes ``widget``'s state adds to a notebook saved with JupyterLab's "Save Widget
    State Automatically" (off by default): its JSON, with binary buffers as base64."""
    from ipywidgets.widgets.widget import _remove_buffers

    state, _paths, buffers = _remove_buffers(widget.get_state())
    return len(json.dumps(state)) + sum(4 * -(-len(b) // 3) for b in buffers)

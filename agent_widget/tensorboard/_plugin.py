"""``AgentPlugin``: TensorBoard's Agent tab, a run's episodes stepped frame by frame.

Registered through the ``tensorboard_plugins`` entry point as a dynamic plugin: its
front end is one ES module (js/tensorboard/, built into agent_widget/static/), which
TensorBoard loads in an iframe, and which shows an episode in the notebook's viewer.
The viewer speaks to these routes the messages it speaks to a kernel: the server
side is an ``EpisodeViewer`` of the file (never displayed), and each route answers
with what the viewer would send (:meth:`EpisodeViewer.answers`):

- ``/runs``: the runs and their episodes (JSON, :mod:`agent_widget.tensorboard._listing`);
- ``/episode?path=P``: the viewer's state (:mod:`agent_widget.tensorboard._packed`),
  the first chunk of frames in it as stored, as a notebook's viewer state carries it:
  the first frame is painted with no second round trip, however long the episode;
- ``/message?path=P&m=JSON``: the replies to one request of the viewer's: frame chunks
  as stored, a stretch of the timeline, or panel cards (computed here, each within its
  panel's time limit, on the request's own thread: TensorBoard's other dashboards go on
  answering). The request's id is left out of the URL, so equal requests are one URL
  and the browser's cache holds their answers (the ETag: the file's version and this
  TensorBoard's start).

Bad parameters get 400 and a sentence; a missing file 404; nothing is unpickled, and
only files under the logdir are opened (:mod:`agent_widget.tensorboard._logdir`).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from tensorboard.plugins import base_plugin
from werkzeug import Request, Response

from agent_widget.episodes import load
from agent_widget.tensorboard._listing import Listing, version
from agent_widget.tensorboard._logdir import BadPath, episode_files, episode_path, logdir_of
from agent_widget.tensorboard._packed import packed
from agent_widget.tensorboard._replay import with_frames
from agent_widget.viewer import EpisodeViewer

PLUGIN_NAME = "agent"
_STATIC = Path(__file__).parent.parent / "static"
# Episodes kept open (their viewers): the ones being looked at, not the whole logdir.
OPEN_EPISODES = 8
# A request's JSON, in the URL: the viewer's are a few hundred bytes.
MAX_MESSAGE = 8192
MESSAGE_TYPES = ("chunks", "timeline", "panel")
# The viewer's embed_bytes: the first chunk alone (first_chunks lets it past the budget,
# up to 256 KiB), the same few KiB for 100 steps as for 100,000.
FIRST_CHUNK_ONLY = 1
_log = logging.getLogger(__name__)

App = Callable[[Any, Any], Any]


class AgentPlugin(base_plugin.TBPlugin):
    """The Agent tab: shown whenever the logdir holds an episode file."""

    plugin_name = PLUGIN_NAME

    def __init__(
        self,
        context: base_plugin.TBContext,
        panels_problem: str | None = None,
        model: Any = None,
    ) -> None:
        self._logdir = logdir_of(context.logdir or "")
        self._cards, model_problem = _network_cards(model)
        self._panels_problem = panels_problem or model_problem
        # In every ETag: a cached answer from an earlier TensorBoard (other panels, another
        # version of the package) is never taken for this one's.
        self._boot = uuid.uuid4().hex[:12]
        self._listing = None if self._logdir is None else Listing(self._logdir)
        self._open: OrderedDict[tuple[str, str], Opened] = OrderedDict()
        self._lock = threading.Lock()

    def is_active(self) -> bool:
        return self._logdir is not None and bool(episode_files(self._logdir, limit=1))

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        return base_plugin.FrontendMetadata(es_module_path="/index.js", tab_name="Agent")

    def get_plugin_apps(self) -> dict[str, App]:
        return {
            "/index.js": self._static("tensorboard.js", "text/javascript"),
            "/index.css": self._static("tensorboard.css", "text/css"),
            "/runs": _answering(self._runs),
            "/episode": _answering(self._episode),
            "/message": _answering(self._message),
        }

    def _static(self, name: str, content_type: str) -> App:
        @Request.application
        def serve(request: Request) -> Response:
            path = _STATIC / name
            return _cached(request, path.read_bytes(), content_type, version(path))

        return serve

    def _runs(self, request: Request) -> Response:
        runs = [] if self._listing is None else self._listing.runs()
        listing = {"runs": runs, "panels_problem": self._panels_problem}
        body = json.dumps(listing, separators=(",", ":"), allow_nan=False)
        return Response(body, content_type="application/json", headers=_NO_STORE)

    def _episode(self, request: Request) -> Response:
        opened = self._opened(request.args.get("path"))
        state = opened.viewer.view_state()
        body = packed({"state": state, "version": opened.version, "problem": opened.problem})
        return _cached(request, body, "application/octet-stream", opened.version)

    def _message(self, request: Request) -> Response:
        content = {**_request_message(request.args.get("m")), "id": 0}
        viewer, version, _ = self._opened(request.args.get("path"))
        if content["type"] == "panel":
            answers = viewer.card_answers(content)
        else:
            answers = list(viewer.answers(content))
        replies: list[tuple[dict[str, Any], list[bytes]]] = []
        for message, buffers in answers:
            if message.get("type") in ("error", "timeline-error"):
                raise ValueError(message.get("message", "the request was refused"))
            replies.append(({k: v for k, v in message.items() if k != "id"}, buffers))
        body = packed({"replies": replies})
        if any(message.get("retry") for message, _ in replies):
            # A card of a panel past its time limit: the view asks again, for the result.
            return Response(body, content_type="application/octet-stream", headers=_NO_STORE)
        return _cached(request, body, "application/octet-stream", version)

    def _opened(self, relative: str | None) -> Opened:
        """The file ``relative`` names, opened once per version: its viewer (of frames
        rendered by replay for a checkpoint's episode stored without them)."""
        if self._logdir is None:
            raise FileNotFoundError("TensorBoard serves no local logdir")
        path = episode_path(self._logdir, relative)
        key = (str(relative), f"{version(path)}-{self._boot}")
        with self._lock:
            opened = self._open.get(key)
            if opened is not None:
                self._open.move_to_end(key)
                return opened
        rollout, problem = with_frames(load(path))
        viewer = EpisodeViewer(rollout, embed_bytes=FIRST_CHUNK_ONLY)
        if self._cards is not None:
            try:
                self._cards.add_to(viewer, path, rollout)
            except Exception as error:  # the run's run.json, read as a checkpoint run
                problem = f"no network cards: {type(error).__name__}: {error}"[:500]
        opened = Opened(viewer, key[1], problem)
        with self._lock:
            self._open[key] = opened
            while len(self._open) > OPEN_EPISODES:
                self._open.popitem(last=False)[1].viewer.close()
        return opened


class Opened(NamedTuple):
    """An episode file the tab shows: its viewer, the version it was read at, and why
    it has no frames when replay could not make them."""

    viewer: EpisodeViewer
    version: str
    problem: str | None


_NO_STORE = {"Cache-Control": "no-store"}


def _network_cards(model: Any) -> tuple[Any, str | None]:
    """The cards of each checkpoint's network for ``model`` (None without one), and why
    there are none when it gives none. Imported only then: it needs torch."""
    if model is None:
        return None, None
    try:
        from agent_widget.tensorboard._network_cards import NetworkCards

        return NetworkCards(model), None
    except Exception as error:  # torch missing, or a model no panel takes
        _log.exception("agent plugin: the panels file's model gives no cards")
        why = f"{type(error).__name__}: {error}"
        return None, f"the panels file's model gives no cards: {why}"[:1000]


def _request_message(text: str | None) -> dict[str, Any]:
    """The viewer's request ``m`` names, checked: a JSON object of a type answered here."""
    if not text:
        raise BadPath("'m' is missing: the viewer's request, as JSON")
    if len(text) > MAX_MESSAGE:
        raise BadPath(f"'m' is {len(text)} characters long; at most {MAX_MESSAGE}")
    try:
        content = json.loads(text)
    except ValueError:
        raise BadPath(f"'m' is not JSON: {text[:100]!r}") from None
    if not isinstance(content, dict) or content.get("type") not in MESSAGE_TYPES:
        raise BadPath(f"'m' must be a request of type {' or '.join(MESSAGE_TYPES)}")
    return content


def _cached(request: Request, body: bytes, content_type: str, etag: str) -> Response:
    """``body``, or 304 when the browser holds it: the ETag is the file's version, and
    the browser asks each time (a growing file changes under the same URL)."""
    headers = {"Cache-Control": "private, no-cache", "ETag": f'"{etag}"'}
    if request.if_none_match.contains(etag):
        return Response(status=304, headers=headers)
    return Response(body, content_type=content_type, headers=headers)


def _answering(route: Callable[[Request], Response]) -> App:
    """``route`` as a WSGI app whose failures are a status and a sentence, never a
    traceback page: 400 for a bad parameter, 404 for a missing file, else 500."""

    @Request.application
    def app(request: Request) -> Response:
        try:
            return route(request)
        except ValueError as error:
            return _text(400, str(error))
        except FileNotFoundError as error:
            return _text(404, str(error))
        except Exception:
            _log.exception("agent plugin: %s failed", request.path)
            return _text(500, "the Agent plugin failed to answer; TensorBoard's log says why")

    return app


def _text(status: int, message: str) -> Response:
    return Response(message[:2000], status=status, content_type="text/plain", headers=_NO_STORE)

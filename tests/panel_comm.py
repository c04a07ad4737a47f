"""Driving a viewer's panels through its comm handler, as a front end does.

Requests go in as custom comm messages; cards come back from the panel worker
thread, so replies are collected by a thread-safe outbox and waited for.
"""

from __future__ import annotations

import threading

from agent_widget.viewer import EpisodeViewer
from tests.waiting import LIMIT


class Outbox:
    def __init__(self) -> None:
        self.messages: list[tuple[dict, list]] = []
        self._changed = threading.Condition()

    def __call__(self, content: dict, buffers: list | None = None) -> None:
        with self._changed:
            self.messages.append((content, list(buffers or [])))
            self._changed.notify_all()

    def wait(self, count: int, kind: str = "panel") -> list[tuple[dict, list]]:
        """The first ``count`` messages of type ``kind``, once they are there."""

        def ready() -> list[tuple[dict, list]] | None:
            found = [m for m in self.messages if m[0]["type"] == kind]
            return found[:count] if len(found) >= count else None

        with self._changed:
            found = self._changed.wait_for(ready, LIMIT)
        assert found, f"timed out waiting for {count} {kind!r} messages: {self.messages}"
        return found


def deliver(viewer: EpisodeViewer, content: object) -> None:
    viewer._handle_msg(
        {"content": {"data": {"method": "custom", "content": content}}, "buffers": []}
    )


def ask(viewer: EpisodeViewer, step: int, names: list[str] | None = None, request_id: int = 1):
    content: dict = {"type": "panel", "id": request_id, "step": step}
    if names is not None:
        content["names"] = names
    deliver(viewer, content)

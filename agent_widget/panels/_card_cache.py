"""A byte-bounded cache of panel cards per (panel name, step), least recently used out first.

Not thread-safe by itself: :class:`~agent_widget.panels._runner.PanelRunner` holds its
lock around every call.
"""

from __future__ import annotations

from collections import OrderedDict

from agent_widget.panels._cards import Card

DEFAULT_CACHE_BYTES = 256 * 2**20


class CardCache:
    """Cards by ``(name, t)``, holding at most ``max_bytes`` (by :attr:`Card.nbytes`).

    Examples:
        >>> cache = CardCache(max_bytes=100)
        >>> cache.put("notes", 3, Card("text", {"text": "hi"}))
        >>> cache.get("notes", 3).meta
        {'text': 'hi'}
        >>> cache.get("notes", 4) is None
        True
    """

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if max_bytes < 0:
            raise ValueError(f"the card cache bound must be >= 0 bytes, got {max_bytes}")
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._cards: OrderedDict[tuple[str, int], Card] = OrderedDict()

    def __len__(self) -> int:
        return len(self._cards)

    def get(self, name: str, t: int) -> Card | None:
        card = self._cards.get((name, t))
        if card is not None:
            self._cards.move_to_end((name, t))
        return card

    def put(self, name: str, t: int, card: Card) -> None:
        """Keep ``card``, evicting the least recently used; one over the bound is not kept."""
        self._remove((name, t))
        if card.nbytes > self.max_bytes:
            return
        self._cards[(name, t)] = card
        self.nbytes += card.nbytes
        while self.nbytes > self.max_bytes:
            self._remove(next(iter(self._cards)))

    def drop(self, name: str) -> None:
        """Forget every card of panel ``name`` (it was replaced or removed)."""
        for key in [key for key in self._cards if key[0] == name]:
            self._remove(key)

    def drop_step(self, t: int) -> None:
        """Forget every card of step ``t`` (the step changed, e.g. it gained an action)."""
        for key in [key for key in self._cards if key[1] == t]:
            self._remove(key)

    def _remove(self, key: tuple[str, int]) -> None:
        card = self._cards.pop(key, None)
        if card is not None:
            self.nbytes -= card.nbytes

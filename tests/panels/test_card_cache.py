"""The card cache: per (panel, step), bounded in bytes, least recently used out first."""

from __future__ import annotations

import pytest

from agent_widget.panels._card_cache import CardCache
from agent_widget.panels._cards import Card


def card(size: int) -> Card:
    """A card of exactly ``size`` bytes (its meta is empty, and counts ``len("{}")``)."""
    return Card("image", {}, (b"x" * (size - 2),))


def test_a_card_is_found_by_panel_and_step():
    cache = CardCache(1000)
    cache.put("q", 3, card(10))
    assert cache.get("q", 3) == card(10)
    assert cache.get("q", 4) is None
    assert cache.get("p", 3) is None


def test_the_least_recently_used_card_goes_first_when_the_bound_is_passed():
    cache = CardCache(300)
    for t in range(3):
        cache.put("q", t, card(100))
    cache.get("q", 0)
    cache.put("q", 3, card(100))
    assert [t for t in range(4) if cache.get("q", t) is not None] == [0, 2, 3]
    assert cache.nbytes == 300


def test_putting_a_card_again_replaces_it_and_its_size():
    cache = CardCache(1000)
    cache.put("q", 0, card(100))
    cache.put("q", 0, card(40))
    assert (len(cache), cache.nbytes) == (1, 40)


def test_a_card_larger_than_the_bound_is_not_kept():
    cache = CardCache(50)
    cache.put("q", 0, card(20))
    cache.put("q", 1, card(51))
    assert (cache.get("q", 1), len(cache), cache.nbytes) == (None, 1, 20)


def test_drop_forgets_one_panels_cards():
    cache = CardCache(1000)
    for name in "pq":
        for t in range(2):
            cache.put(name, t, card(10))
    cache.drop("q")
    assert (len(cache), cache.nbytes) == (2, 20)
    assert cache.get("p", 1) is not None


def test_drop_step_forgets_every_panels_card_of_one_step():
    cache = CardCache(1000)
    for name in "pq":
        for t in range(2):
            cache.put(name, t, card(10))
    cache.drop_step(1)
    assert sorted((n, t) for n in "pq" for t in range(2) if cache.get(n, t)) == [
        ("p", 0),
        ("q", 0),
    ]


def test_a_negative_bound_is_refused():
    with pytest.raises(ValueError, match="must be >= 0 bytes, got -1"):
        CardCache(-1)

"""Env states held as deltas: each against the state kept before it, so an episode can
keep many for the bytes of a few.

An ALE state (14.4 KB serialized, 7.4 KB deflated) is mostly two random generators
(Mersenne Twisters, the one of sticky actions and the emulator's: 624 words each,
written as text) whose words are all new each time they regenerate, every 624 draws;
two states 64 steps apart differ in a few hundred of their other bytes. Those bytes
are deflated with the state before as zlib's dictionary (~100 B); a generator's
words, when they are the earlier state's regenerated a few times (what the generator
itself does, redone here by NumPy's MT19937), are stored as that count alone. So a
state costs ~170 B, the first 5.4 KB (benchmarks/branch.py measures them). A state
with no such generator is deflated against the one before all the same.
"""

from __future__ import annotations

import re
import zlib
from typing import Any, NamedTuple

import numpy as np

# std::mt19937 as C++ streams write it: its 624 words, then its index.
_GENERATOR = re.compile(rb"(?<![0-9])(?:[0-9]{1,10} ){624}[0-9]{1,3}(?![0-9])")
_WORDS = 624
_MOST_TWISTS = 64  # ~40,000 draws: a gap between two kept states longer than that stores the words


class _Split(NamedTuple):
    """A serialized state as its bytes without its generators, and for each generator
    where it was in them, its words and its index (as written); ``texts`` and
    ``found`` (where each generator's text was in the state's bytes) let the next
    state skip what did not change."""

    rest: bytes
    at: tuple[int, ...]
    words: tuple[np.ndarray, ...]
    cursors: tuple[bytes, ...]  # each generator's index into its words, as written
    texts: tuple[bytes, ...] = ()
    found: tuple[int, ...] = ()

    @classmethod
    def of(cls, raw: bytes, before: _Split | None) -> _Split:
        """``raw``'s parts; the generators looked for where ``before``'s were first (a
        search through the whole state costs more than the rest of a save)."""
        pieces: list[bytes] = []
        words: list[np.ndarray] = []
        cursors: list[bytes] = []
        texts: list[bytes] = []
        at: list[int] = []
        found_at: list[int] = []
        done = kept = 0
        hints = before.found if before is not None else ()
        for found in _generators(raw, hints):
            text, _, position = found.group().rpartition(b" ")  # the words, the index
            g = len(texts)  # this generator's number, to match the state before's
            if before is not None and g < len(before.texts) and text == before.texts[g]:
                numbers = before.words[g]
            else:
                numbers = np.array([int(d) for d in text.split(b" ")], dtype=np.uint64)
                if numbers.max() >= 2**32 or _written(numbers, position) != found.group():
                    continue  # not as the generator writes itself: left in the bytes
                numbers = numbers.astype(np.uint32)
            pieces.append(raw[done : found.start()])
            kept += found.start() - done
            at.append(kept)
            words.append(numbers)
            cursors.append(position)
            texts.append(text)
            found_at.append(found.start())
            done = found.end()
        pieces.append(raw[done:])
        joined = b"".join(pieces)
        return cls(joined, tuple(at), tuple(words), tuple(cursors), tuple(texts), tuple(found_at))

    def joined(self) -> bytes:
        pieces, done = [], 0
        for at, words, index in zip(self.at, self.words, self.cursors, strict=True):
            pieces += [self.rest[done:at], _written(words, index)]
            done = at
        pieces.append(self.rest[done:])
        return b"".join(pieces)


def _written(words: np.ndarray, index: bytes) -> bytes:
    """A generator as C++ streams write it."""
    return b" ".join(b"%d" % w for w in words.tolist()) + b" " + index


def _generators(raw: bytes, hints: tuple[int, ...]) -> list[re.Match[bytes]]:
    """The generators in ``raw``: where the hints say (give or take a few bytes), else
    searched for through all of it."""
    found, start = [], 0
    for hint in hints:
        match = _GENERATOR.search(raw, max(start, hint - 16), hint + 16 + 7000)
        if match is None or match.start() > hint + 16:
            break
        found.append(match)
        start = match.end()
    else:
        if found:
            return found
    return list(_GENERATOR.finditer(raw))


def _twisted(words: np.ndarray) -> np.ndarray:
    """The generator's next 624 words (its regeneration), by NumPy's own MT19937."""
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": _WORDS}}
    generator.random_raw()
    return np.asarray(generator.state["state"]["key"], dtype=np.uint32)


def _twists(before: np.ndarray, after: np.ndarray) -> int | None:
    """How many regenerations take ``before`` to ``after``, if a few do."""
    words = before
    for count in range(_MOST_TWISTS + 1):
        if np.array_equal(words, after):
            return count
        words = _twisted(words)
    return None


class DeltaState(NamedTuple):
    """A serialized state (its type rebuilds it from its bytes) held against ``base``,
    the state kept before it (None: held whole)."""

    kind: type
    base: DeltaState | None
    rest: bytes  # the bytes without the generators, deflated (against the base's)
    at: tuple[int, ...]  # where each generator's text goes in them
    # Each generator's words: the base's regenerated this many times, or None: in ``words``
    twists: tuple[int | None, ...]
    words: bytes  # the words of the generators that are not the base's regenerated
    cursors: tuple[bytes, ...]  # each generator's index into its words, as written

    @property
    def nbytes(self) -> int:
        """The bytes this state holds beyond its base's."""
        return len(self.rest) + len(self.words) + sum(map(len, self.cursors)) + 64

    def unpacked(self) -> Any:
        return self.kind(self.serialized())

    def serialized(self) -> bytes:
        """The state's bytes, decoded along its chain from the first state held whole."""
        chain: list[DeltaState] = []
        state: DeltaState | None = self
        while state is not None:
            chain.append(state)
            state = state.base
        split = None
        for link in reversed(chain):
            split = link.split(split)
        assert split is not None
        return split.joined()

    def split(self, base: _Split | None) -> _Split:
        """This state's parts, given its base's (None when it is held whole)."""
        rest = _inflate(self.rest, b"" if base is None else base.rest)
        stored = np.frombuffer(self.words, dtype=np.uint32)
        words = []
        for g, twists in enumerate(self.twists):
            if twists is None:
                generator, stored = stored[:_WORDS], stored[_WORDS:]
            else:
                assert base is not None  # as packed
                generator = base.words[g]
                for _ in range(twists):
                    generator = _twisted(generator)
            words.append(generator)
        return _Split(rest, self.at, tuple(words), self.cursors)

    @classmethod
    def packed(
        cls, kind: type, raw: bytes, base: tuple[DeltaState, _Split] | None
    ) -> tuple[DeltaState, _Split]:
        """A state of type ``kind`` serialized as ``raw``, against ``base`` (the state
        kept before and its parts, kept by the caller so that a chain of states costs
        one split each); with its own parts, for the next."""
        before = None if base is None else base[1]
        split = _Split.of(raw, before)
        twists: list[int | None] = [None] * len(split.words)
        if before is not None and len(before.words) == len(split.words):
            twists = [_twists(b, a) for b, a in zip(before.words, split.words, strict=True)]
        stored = [w.tobytes() for w, n in zip(split.words, twists, strict=True) if n is None]
        packed = cls(
            kind,
            None if base is None else base[0],
            _deflate(split.rest, b"" if before is None else before.rest),
            split.at,
            tuple(twists),
            b"".join(stored),
            split.cursors,
        )
        return packed, split


def _deflate(data: bytes, dictionary: bytes) -> bytes:
    packer = zlib.compressobj(6, zdict=dictionary) if dictionary else zlib.compressobj(6)
    return packer.compress(data) + packer.flush()


def _inflate(data: bytes, dictionary: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=dictionary) if dictionary else zlib.decompressobj()
    return unpacker.decompress(data) + unpacker.flush()

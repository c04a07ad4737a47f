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
with no such generator is deflated against the one before all the same. A delta is made
of bytes alone (:func:`pack_state`), so the frame encoder process can make it
(:mod:`agent_widget.recording._encoder._state_packing`); it imports only NumPy.
"""

from __future__ import annotations

import re
import zlib
from typing import Any, NamedTuple

import numpy as np

# std::mt19937 as C++ streams write it: its 624 words, then its index (decimal, no
# leading zeros: written again from the words, the same bytes).
_GENERATOR = re.compile(rb"(?<![0-9])(?:(?:0|[1-9][0-9]{0,9}) ){624}(?:0|[1-9][0-9]{0,2})(?![0-9])")
_CURSOR = re.compile(rb"(?:0|[1-9][0-9]{0,2})(?![0-9])")
_WORDS = 624
_MOST_TWISTS = 64  # ~40,000 draws: a gap between two kept states longer than that stores the words


class _Found(NamedTuple):
    """One generator found in a state's bytes: its text spans ``start..end``."""

    start: int
    end: int
    words: np.ndarray
    text: bytes  # the words, as written
    cursor: bytes  # its index into its words, as written


class Split(NamedTuple):
    """A serialized state as its bytes without its generators, and for each generator
    where it was in them, its words and its index (as written); ``texts`` and
    ``found`` (where each generator's text was in the state's bytes) let the next
    state find its generators without searching."""

    rest: bytes
    at: tuple[int, ...]
    words: tuple[np.ndarray, ...]
    cursors: tuple[bytes, ...]
    texts: tuple[bytes, ...] = ()
    found: tuple[int, ...] = ()

    @classmethod
    def of(cls, raw: bytes, before: Split | None) -> Split:
        """``raw``'s parts. Its generators are looked for where ``before``'s were, as
        they were or regenerated once (a comparison of bytes), else searched for (a
        search through a state costs as much as cloning it)."""
        generators = None if before is None else _foreseen(raw, before)
        if generators is None:
            generators = _searched(raw)
        pieces, done = [], 0
        for found in generators:
            pieces.append(raw[done : found.start])
            done = found.end
        pieces.append(raw[done:])
        return cls(
            b"".join(pieces),
            _kept_offsets(generators),
            tuple(found.words for found in generators),
            tuple(found.cursor for found in generators),
            tuple(found.text for found in generators),
            tuple(found.start for found in generators),
        )

    def found_again(self) -> Split:
        """These parts with where each generator's text is in the state's bytes, as
        :meth:`of` finds them, for the next state to look there."""
        texts = tuple(_written(words) for words in self.words)
        found, shift = [], 0
        for at, text, cursor in zip(self.at, texts, self.cursors, strict=True):
            found.append(at + shift)
            shift += len(text) + 1 + len(cursor)
        return self._replace(texts=texts, found=tuple(found))

    def joined(self) -> bytes:
        pieces, done = [], 0
        for at, words, cursor in zip(self.at, self.words, self.cursors, strict=True):
            pieces += [self.rest[done:at], _written(words), b" ", cursor]
            done = at
        pieces.append(self.rest[done:])
        return b"".join(pieces)


def _kept_offsets(generators: list[_Found]) -> tuple[int, ...]:
    """Where each generator goes in the bytes without them."""
    offsets, removed = [], 0
    for found in generators:
        offsets.append(found.start - removed)
        removed += found.end - found.start
    return tuple(offsets)


def _written(words: np.ndarray) -> bytes:
    """A generator's words as C++ streams write them."""
    return b" ".join(map(b"%d".__mod__, words.tolist()))  # 40% quicker than a generator


def _foreseen(raw: bytes, before: Split) -> list[_Found] | None:
    """The generators of ``raw`` where ``before``'s were (shifted by the lengths of
    those before them), their words as before or regenerated once; None if not."""
    generators: list[_Found] = []
    shift = 0
    for words, text, start, cursor in zip(
        before.words, before.texts, before.found, before.cursors, strict=True
    ):
        found = _found_at(raw, start + shift, words, text)
        if found is None:
            found = _found_at(raw, start + shift, (twisted := _twisted(words)), _written(twisted))
        if found is None:
            return None
        generators.append(found)
        shift += (found.end - found.start) - (len(text) + 1 + len(cursor))
    return generators


def _found_at(raw: bytes, start: int, words: np.ndarray, text: bytes) -> _Found | None:
    """The generator whose words are ``text``, if at ``start`` in ``raw``."""
    if not raw.startswith(text + b" ", start):
        return None
    cursor = _CURSOR.match(raw, start + len(text) + 1)
    return None if cursor is None else _Found(start, cursor.end(), words, text, cursor.group())


def _searched(raw: bytes) -> list[_Found]:
    """The generators of ``raw``, searched for through all of it."""
    generators = []
    for match in _GENERATOR.finditer(raw):
        text, _, cursor = match.group().rpartition(b" ")
        words = np.fromstring(text, dtype=np.uint64, sep=" ")  # from text: not deprecated
        if len(words) == _WORDS and words.max() < 2**32:
            generators.append(
                _Found(match.start(), match.end(), words.astype(np.uint32), text, cursor)
            )
    return generators


def _twisted(words: np.ndarray) -> np.ndarray:
    """The generator's next 624 words (its regeneration, as std::mt19937 and NumPy's
    MT19937 do it), in three vectorized runs: word i takes word i + 397's new value
    once that one is new (i >= 227), so each run takes only words the run before made."""
    mt = words.astype(np.uint32)  # a copy
    for start, stop in ((0, 227), (227, 454), (454, 623)):
        upper = mt[start:stop] & np.uint32(0x80000000)
        y = upper | (mt[start + 1 : stop + 1] & np.uint32(0x7FFFFFFF))
        far = mt[(start + 397) % _WORDS : (stop + 397 - 1) % _WORDS + 1]
        mt[start:stop] = far ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * np.uint32(0x9908B0DF))
    y = (mt[623] & np.uint32(0x80000000)) | (mt[0] & np.uint32(0x7FFFFFFF))
    mt[623] = mt[396] ^ (y >> np.uint32(1)) ^ ((y & np.uint32(1)) * np.uint32(0x9908B0DF))
    return mt


def _twists(before: np.ndarray, after: np.ndarray) -> int | None:
    """How many regenerations take ``before`` to ``after``, if a few do."""
    words = before
    for count in range(_MOST_TWISTS + 1):
        if np.array_equal(words, after):
            return count
        words = _twisted(words)
    return None


class Delta(NamedTuple):
    """A serialized state packed against the state kept before it (``based``), or whole:
    plain values, made here or in the frame encoder process, which keeps each chain's
    newest parts (:mod:`agent_widget.recording._encoder._state_packing`)."""

    based: bool
    rest: bytes  # the bytes without the generators, deflated (against the base's)
    at: tuple[int, ...]  # where each generator's text goes in them
    # Each generator's words: the base's regenerated this many times, or None: in ``words``
    twists: tuple[int | None, ...]
    words: bytes  # the words of the generators that are not the base's regenerated
    cursors: tuple[bytes, ...]  # each generator's index into its words, as written


def pack_state(raw: bytes, before: Split | None) -> tuple[Delta, Split]:
    """A state serialized as ``raw``, packed against the parts of the state kept before
    it (None: whole); with its own parts, for the next (a chain of states costs one
    split each)."""
    split = Split.of(raw, before)
    twists: list[int | None] = [None] * len(split.words)
    if before is not None and len(before.words) == len(split.words):
        twists = [_twists(b, a) for b, a in zip(before.words, split.words, strict=True)]
    stored = [w.tobytes() for w, n in zip(split.words, twists, strict=True) if n is None]
    delta = Delta(
        before is not None,
        _deflate(split.rest, b"" if before is None else before.rest),
        split.at,
        tuple(twists),
        b"".join(stored),
        split.cursors,
    )
    return delta, split


class DeltaState(NamedTuple):
    """A serialized state (its type rebuilds it from its bytes) held against ``base``,
    the state kept before it (None: held whole)."""

    kind: type
    base: DeltaState | None
    delta: Delta

    @classmethod
    def of(cls, kind: type, base: DeltaState | None, delta: Delta) -> DeltaState:
        """``delta`` as a state of type ``kind``, against ``base`` if it is packed
        against one (the state kept before it)."""
        return cls(kind, base if delta.based else None, delta)

    @classmethod
    def packed(
        cls, kind: type, raw: bytes, base: tuple[DeltaState, Split] | None
    ) -> tuple[DeltaState, Split]:
        """A state of type ``kind`` serialized as ``raw``, packed here against ``base``
        (the state kept before and its parts); with its own parts, for the next."""
        delta, split = pack_state(raw, None if base is None else base[1])
        return cls.of(kind, None if base is None else base[0], delta), split

    @property
    def nbytes(self) -> int:
        """The bytes this state holds beyond its base's."""
        delta = self.delta
        return len(delta.rest) + len(delta.words) + sum(map(len, delta.cursors)) + 64

    def unpacked(self) -> Any:
        return self.kind(self.serialized())

    def serialized(self) -> bytes:
        """The state's bytes, decoded along its chain from the first state held whole."""
        return self._decoded().joined()

    def parts(self) -> Split:
        """The state's parts, with where its generators are: to pack the next against."""
        return self._decoded().found_again()

    def _decoded(self) -> Split:
        """The state's parts, decoded along its chain from the first state held whole."""
        chain: list[DeltaState] = []
        state: DeltaState | None = self
        while state is not None:
            chain.append(state)
            state = state.base
        split = None
        for link in reversed(chain):
            split = link.split(split)
        assert split is not None
        return split

    def split(self, base: Split | None) -> Split:
        """This state's parts, given its base's (None when it is held whole)."""
        delta = self.delta
        rest = _inflate(delta.rest, b"" if base is None else base.rest)
        stored = np.frombuffer(delta.words, dtype=np.uint32)
        words = []
        for g, twists in enumerate(delta.twists):
            if twists is None:
                generator, stored = stored[:_WORDS], stored[_WORDS:]
            else:
                assert base is not None  # as packed
                generator = base.words[g]
                for _ in range(twists):
                    generator = _twisted(generator)
            words.append(generator)
        return Split(rest, delta.at, tuple(words), delta.cursors)


def _deflate(data: bytes, dictionary: bytes) -> bytes:
    packer = zlib.compressobj(6, zdict=dictionary) if dictionary else zlib.compressobj(6)
    return packer.compress(data) + packer.flush()


def _inflate(data: bytes, dictionary: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=dictionary) if dictionary else zlib.decompressobj()
    return unpacker.decompress(data) + unpacker.flush()

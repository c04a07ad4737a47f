"""The frame encoder process and what the recording hands it: the riskiest code of the
package, kept in one place.

A recording copies each frame (and each large observation) into a ring of shared
memory; a helper process, started once per Python process, encodes full chunks there
and sends their parts back (:mod:`._process`, :mod:`._worker`, :mod:`._ring`). With a
file to record to, it also holds each chunk whose steps are known, so that killing the
recording loses nothing (:mod:`._held_chunks`, :mod:`._held_records`), makes the
chunks' journal records (:mod:`._remote_records`) and packs env states as deltas
(:mod:`._state_packing`). The rest of the recording layer sees only the names below.
"""

from agent_widget.recording._encoder._frames import OffloadedFrames
from agent_widget.recording._encoder._held_chunks import Held
from agent_widget.recording._encoder._process import EncoderDied, encoder_deaths
from agent_widget.recording._encoder._remote_records import RemoteRecords
from agent_widget.recording._encoder._rows import OffloadedRows
from agent_widget.recording._encoder._state_packing import StateChain

__all__ = [
    "EncoderDied",
    "Held",
    "OffloadedFrames",
    "OffloadedRows",
    "RemoteRecords",
    "StateChain",
    "encoder_deaths",
]

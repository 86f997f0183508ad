"""What a cover is: an index over a risk period (a catalogue slot) and its payout terms."""

from __future__ import annotations

import datetime as dt

import msgspec


class CoverageSlot(msgspec.Struct, frozen=True, order=True):
    """One catalogue entry to exist: an index definition over a risk period (dates inclusive)."""

    index_code: str
    start: dt.date
    end: dt.date

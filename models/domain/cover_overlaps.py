"""One index is never sold twice at one target for the same days (issue 33, section 2).

Two covers of the same index definition at the same monitoring target whose risk periods
share a day would pay twice for one event: a quote (and so a policy) never holds such a pair.
Pure: covers in, the offending pairs out (positions in the list given), for the caller to
name in its 400 (api/internal_quotes/service.py, api/quotes/service.py).
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import NamedTuple, Sequence


class CoverKey(NamedTuple):
    """What makes two covers the same risk: index, target and (inclusive) days."""

    index_definition_id: uuid.UUID
    monitoring_target_id: str
    start: dt.date
    end: dt.date


class Overlap(NamedTuple):
    first: int  # position of the earlier-listed cover
    second: int  # position of the later-listed one (the one to refuse)
    start: dt.date  # the days both cover, inclusive
    end: dt.date


def overlaps(covers: Sequence[CoverKey]) -> list[Overlap]:
    """Every pair of covers of one index at one target whose days overlap, in list order."""
    found = []
    for j, b in enumerate(covers):
        for i in range(j):
            a = covers[i]
            if (a.index_definition_id, a.monitoring_target_id) != (b.index_definition_id, b.monitoring_target_id):
                continue
            start, end = max(a.start, b.start), min(a.end, b.end)
            if start <= end:
                found.append(Overlap(i, j, start, end))
    return found


def days(overlap: Overlap) -> str:
    """The days both covers share, for a message: "2026-12-01 to 2026-12-28"."""
    return f"{overlap.start}" if overlap.start == overlap.end else f"{overlap.start} to {overlap.end}"

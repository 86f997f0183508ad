"""The values the quality checks made SUSPECT, the days missing, and a data staff member's
acceptance (issue 34; docs/observations.md, "Quality checks").

A SUSPECT value is never paid (models/domain/ladder.py `choose_rungs`). Accepting one stores
it again, as the next revision of its key: the same value, GOOD, `quality_check =
"accepted:<check>"`, naming the data staff member as submitter and approver, with the
settlement notices of its days (the settlements over them are told, as for any stored value).
Replacing one is an ordinary POST /internal/observations (its new value is checked again).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from models.db.core import write_transaction
from models.db.observations import CHUNK, Received, latest_stored, insert_received
from models.db.tables import Observation
from models.domain.data_sets import DATA_SETS
from models.domain.observations import ObservationIn, Provenance, RowProblem, observation_key
from models.domain.quality_checks import ACCEPTED, missing_days

MAX_LISTED = 5000  # SUSPECT values listed per month (the answer says when there are more)


async def suspect_values(first: dt.date, last: dt.date) -> list[dict]:
    """The latest revisions of [first, last] that are SUSPECT, by target, data set, variable,
    day and hour (at most MAX_LISTED + 1: the caller says when there are more)."""
    rows = await Observation.select(
        Observation.obs_key, Observation.monitoring_target_id, Observation.data_set, Observation.variable,
        Observation.observed_on, Observation.hour, Observation.value, Observation.source, Observation.provisional,
        Observation.revision, Observation.quality_check, Observation.submitted_by, Observation.received_at,
    ).where(
        (Observation.observed_on >= first) & (Observation.observed_on <= last) & (Observation.quality == "SUSPECT")
    )
    keys = sorted({r["obs_key"] for r in rows})
    latest = await latest_stored(keys)
    current = [r for r in rows if latest[r["obs_key"]][0] == r["revision"]]
    current.sort(key=lambda r: (r["monitoring_target_id"], r["data_set"], r["variable"], r["observed_on"], r["hour"] or -1))
    return current[: MAX_LISTED + 1]


async def missing_in(first: dt.date, last: dt.date) -> list[dict]:
    """Daily series with a value in [first, last] but not on every day of it: {target,
    data set, variable, days missing} (the missing-day check; hourly data sets: days with no
    hour at all)."""
    counted = await Observation.raw(
        "SELECT monitoring_target_id, data_set, variable, COUNT(DISTINCT observed_on) AS n FROM observation "
        "WHERE observed_on >= {} AND observed_on <= {} GROUP BY monitoring_target_id, data_set, variable",
        first, last,
    )
    span = (last - first).days + 1
    short = [c for c in counted if c["n"] < span and c["data_set"] in DATA_SETS]
    out = []
    for c in sorted(short, key=lambda c: (c["monitoring_target_id"], c["data_set"], c["variable"]))[:MAX_LISTED]:
        days = await Observation.select(Observation.observed_on).where(
            (Observation.monitoring_target_id == c["monitoring_target_id"]) & (Observation.data_set == c["data_set"])
            & (Observation.variable == c["variable"]) & (Observation.observed_on >= first) & (Observation.observed_on <= last)
        ).distinct()
        gaps = missing_days([dt.date.fromisoformat(str(d["observed_on"])) for d in days], first, last)
        out.append({"monitoring_target_id": c["monitoring_target_id"], "data_set": c["data_set"],
                    "variable": c["variable"], "days": gaps})
    return out


@dataclass(frozen=True, slots=True)
class ValueKey:
    """Which stored value: target, data set, variable, day and hour (None: a daily value)."""

    monitoring_target_id: str
    data_set: str
    variable: str
    day: dt.date
    hour: int | None = None

    @property
    def key(self) -> str:
        return observation_key(self.monitoring_target_id, self.data_set, self.variable, self.day, self.hour)


@dataclass(frozen=True, slots=True)
class Accepted:
    accepted: int  # stored now as accepted
    already: int  # accepted before (a retried request): nothing stored
    notices: tuple[uuid.UUID, ...]  # the settlement notices written with them


class NotAcceptable(Exception):
    """Some listed values cannot be accepted (`problems`): nothing was stored."""

    def __init__(self, problems: list[RowProblem]) -> None:
        super().__init__(f"{len(problems)} value(s) cannot be accepted")
        self.problems = problems


async def accept(values: Sequence[ValueKey], actor: str, reason: str) -> Accepted:
    """Accept the listed SUSPECT values in one transaction: each stored again, GOOD, with
    `accepted:<check>`, submitted and approved by `actor`, `reason` recorded. A value whose
    latest revision is accepted already is left (idempotent); one not stored or not SUSPECT
    is a problem at its position (`NotAcceptable`, nothing stored)."""
    async with write_transaction():
        latest = await latest_stored(sorted({v.key for v in values}))
        rows = await _rows_of([latest[v.key][0] for v in values if v.key in latest], [v.key for v in values if v.key in latest])
        problems: list[RowProblem] = []
        items: list[Received] = []
        already = 0
        seen: set[str] = set()
        for i, v in enumerate(values):
            stored = latest.get(v.key)
            if v.key in seen:
                problems.append(RowProblem(i, "", "listed twice"))
            elif stored is None:
                problems.append(RowProblem(i, "", f"no value is stored for {v.key}"))
            elif stored[4].startswith(ACCEPTED):
                already += 1
            elif stored[2] != "SUSPECT":
                problems.append(RowProblem(i, "", f"the value of {v.key} is {stored[2]}, not SUSPECT"))
            else:
                row = rows[v.key]
                items.append(Received(replace(row, quality="GOOD", quality_check=ACCEPTED + (stored[4] or "reported")), stored))
            seen.add(v.key)
        if problems:
            raise NotAcceptable(problems)
        notices = await insert_received(items, Provenance(submitted_by=actor, reason=reason, approved_by=actor)) if items else []
    return Accepted(len(items), already, tuple(notices))


async def _rows_of(revisions: list[int], keys: list[str]) -> dict[str, ObservationIn]:
    """The stored rows (key → row) of the keys' given revisions."""
    wanted = dict(zip(keys, revisions))
    out: dict[str, ObservationIn] = {}
    for i in range(0, len(keys), CHUNK):
        for r in await Observation.select().where(Observation.obs_key.is_in(keys[i : i + CHUNK])):
            if wanted.get(r["obs_key"]) == r["revision"]:
                out[r["obs_key"]] = ObservationIn(
                    monitoring_target_id=r["monitoring_target_id"], data_set=r["data_set"], variable=r["variable"],
                    day=r["observed_on"], hour=r["hour"], value=Decimal(r["value"]), source=r["source"], quality=r["quality"],
                    provisional=r["provisional"], simulated=r["simulated"], quality_check=r["quality_check"],
                )
    return out

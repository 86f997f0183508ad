"""The monitoring view of a policy: each cover's index so far against its trigger, from the
observations stored up to now (partial: what settlement will compute at the period's end,
over the days that have data)."""

from __future__ import annotations

import datetime as dt

from models.clock import utcnow
from models.db import observations as observations_db
from models.db import settlement as settlement_db
from models.db.quotes import line_item_rows
from models.db.records import PolicyRow
from models.domain.index_catalog import BY_CODE
from models.domain.settlement import days_of
from models.wire.settlement import CoverMonitoring, PolicyMonitoring


def _to_date(aggregation: str, values: list, trigger):
    if not values:
        return None
    if aggregation == "SUM":
        return sum(values, type(values[0])(0))
    if aggregation == "MAX":
        return max(values)
    return type(values[0])(sum(1 for v in values if v >= trigger))


async def policy_monitoring(tenant_id: str, policy: PolicyRow) -> PolicyMonitoring:
    today = utcnow().date()
    items = await line_item_rows(tenant_id, policy_id=policy.id)
    covers = [c for item in items for c in item.covers]
    states = await settlement_db.states_of([c.coverage_id for c in covers]) if covers else {}
    target = await settlement_db.target_of(covers[0].coverage_id) if covers else None
    out = []
    for c in covers:
        spec = BY_CODE[c.index_code]
        period = days_of(c.start, c.end)
        elapsed = [d for d in period if d < today]
        values, simulated = ({}, False)
        if elapsed and target:
            values, simulated = await observations_db.daily_values(target, c.index_code, c.start, min(c.end, today - dt.timedelta(days=1)))
        series = [values[d].value for d in elapsed if d in values]
        index = _to_date(spec.aggregation, series, c.trigger)
        reached = None
        if index is not None and c.direction == "ABOVE":
            reached = index >= c.trigger
        state = states.get(c.coverage_id) or ("PENDING" if c.start > today else "MONITORING")
        out.append(CoverMonitoring(
            coverage_id=c.coverage_id, index_code=c.index_code, index_name=spec.name, unit=spec.unit,
            period_start=c.start, period_end=c.end, direction=c.direction, trigger=c.trigger, exit=c.exit,
            state="SETTLED" if state == "SETTLED" else state, days_in_period=len(period), days_elapsed=len(elapsed),
            days_with_data=len(series), index_to_date=index, trigger_reached=reached,
            provisional=any(values[d].provisional for d in elapsed if d in values), simulated=simulated,
        ))
    return PolicyMonitoring(policy_id=policy.id, status=policy.status, as_of=today, covers=out)

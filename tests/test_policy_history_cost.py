"""What a new 12-month policy's history costs (issue 33, docs/workflow-versioning.md,
"Baselines"): from conversion to EXPIRED it records one patch marker (`policy-baseline-1`)
and one `TemporalChangeVersion` upsert, not one of each per patch whose old branch it can
never take (before: 5 markers and 5 upserts of a converting policy's 122 events; 10 and 10 of
the 150 of this test's policy, started without a quote id). Time-skipping server, real
workers and database."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections import Counter

from temporalio.api.enums.v1 import EventType

from tests.test_lifecycles_time_skipping import (  # noqa: F401 - fixtures
    ClockWorkflow,
    advance,
    skipping_env,
    worker,
)
from tests.test_settlement_time_skipping import TOTALS, _at, _policy

PATCH_BASELINE = "policy-baseline-1"  # workflows.policies.PATCH_BASELINE (spelt out: the test runs on older code too)
from workflows.settlement import DATA_LATENCY


async def test_a_new_12_month_policy_writes_one_patch_marker_and_no_repeated_upserts(skipping_env, worker, capsys):
    env = skipping_env
    _, _, _, months, handle = await _policy(env, worker, TOTALS)
    last_end = months[-1][1]
    await advance(env, worker, _at(last_end) + dt.timedelta(days=1) + DATA_LATENCY + dt.timedelta(days=2) - await env.get_current_time())
    assert await asyncio.wait_for(handle.result(), 60) == "EXPIRED"

    events = (await handle.fetch_history()).events
    patches, upserts = [], []
    for e in events:
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED and e.marker_recorded_event_attributes.marker_name == "core_patch":
            data = e.marker_recorded_event_attributes.details["patch-data"].payloads[0].data
            patches.append(json.loads(data)["id"])
        elif e.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            fields = e.upsert_workflow_search_attributes_event_attributes.search_attributes.indexed_fields
            upserts.extend((name, fields[name].data.decode()) for name in fields)
    with capsys.disabled():
        print(f"\n12-month policy history: {len(events)} events, patch markers {patches}, "
              f"search-attribute upserts {Counter(name for name, _ in upserts)}")
    assert patches == [PATCH_BASELINE]
    assert [name for name, _ in upserts].count("TemporalChangeVersion") == 1
    # Each PolicyStatus upsert is a change (ACCEPTED, ACTIVE, EXPIRED), none repeats its value.
    statuses = [value for name, value in upserts if name == "PolicyStatus"]
    assert statuses == ['"ACCEPTED"', '"ACTIVE"', '"EXPIRED"'], statuses

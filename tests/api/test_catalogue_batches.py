"""A new target's catalogue asks the Temporal server for a few tasks, not a workflow per
coverage (issue 25, finding 6: a pricing burst's many small workflows slowed conversions).

Its coverages are priced jointly in the catalogue workflow, and their fact sheets and
technical reports are rendered by ONE CatalogueDocumentsWorkflow for the batch, a few
coverages per activity. The catalogue's workflows (itself and every child it started) are
counted from their histories against bounds per priced coverage that the code before (a
CoverageDocumentsWorkflow per coverage: a workflow start, three workflow tasks and 16
history events each, and two events in the catalogue) exceeds. Ops still see every pricing
run: the catalogue's `pricing` query, the batch's `documents` query, and the API's runs.
"""

from __future__ import annotations

import asyncio

from models.temporal.ids import catalogue_workflow_id

PUNE = "411001"
# Three months × four monthly indices (less those the model finds not viable).
QUERY = f"targetName={PUNE}&from=2027-06-01&to=2027-08-31&size=100"


async def _children(handle) -> list[str]:
    history = await handle.fetch_history()
    return [
        e.start_child_workflow_execution_initiated_event_attributes.workflow_id
        for e in history.events
        if e.HasField("start_child_workflow_execution_initiated_event_attributes")
    ]


async def _counts(client, workflow_ids: list[str]) -> dict[str, int]:
    counts = {"workflows": 0, "workflow tasks": 0, "activity tasks": 0, "timers": 0, "events": 0}
    for workflow_id in workflow_ids:
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        counts["workflows"] += 1
        counts["events"] += len(history.events)
        for e in history.events:
            counts["workflow tasks"] += e.HasField("workflow_task_completed_event_attributes")
            counts["activity tasks"] += e.HasField("activity_task_scheduled_event_attributes")
            counts["timers"] += e.HasField("timer_started_event_attributes")
    return counts


async def test_a_new_targets_catalogue_costs_the_server_a_few_tasks_not_a_workflow_per_coverage(tenant, temporal_env):
    client = temporal_env.client
    r = await tenant.get(f"/internal/coverages?{QUERY}")
    assert r.status_code == 200, r.text
    coverages = r.json()["content"]
    priced = len(coverages)
    assert priced >= 8, "enough coverages for the per-coverage bounds to mean something"
    target = coverages[0]["monitoringTargetId"]
    catalogue = client.get_workflow_handle(catalogue_workflow_id(target))

    # Every workflow the catalogue started, once each has finished (the documents rendered).
    deadline = asyncio.get_running_loop().time() + 300
    while not (children := await _children(catalogue)):
        assert asyncio.get_running_loop().time() < deadline, "no documents workflow was started"
        await asyncio.sleep(0.5)
    for child in children:
        await asyncio.wait_for(client.get_workflow_handle(child).result(), deadline - asyncio.get_running_loop().time())
    counts = await _counts(client, [catalogue.id, *children])
    per_coverage = {kind: n / priced for kind, n in counts.items()}

    # One documents workflow for the batch (the code before: one per coverage).
    assert len(children) == 1, f"{len(children)} documents workflows for {priced} coverages"
    assert per_coverage["workflows"] <= 0.3, per_coverage
    assert per_coverage["workflow tasks"] <= 1.5, per_coverage  # before: > 3 (3 per documents workflow)
    assert per_coverage["activity tasks"] <= 0.75, per_coverage  # before: > 1 (a render per coverage)
    assert per_coverage["timers"] <= 0.5, per_coverage  # before: > 1 (each documents workflow's delay)
    assert per_coverage["events"] <= 10, per_coverage  # before: > 16 (16 per documents workflow)

    # Ops still see every pricing run: in the catalogue's query, the batch's, and the API.
    runs = await catalogue.query("pricing")
    assert {str(run["coverage_id"]) for run in runs} == {c["id"] for c in coverages}
    assert {run["status"] for run in runs} == {"priced"} and {run["version"] for run in runs} == {1}
    assert {run["documents_workflow_id"] for run in runs} == set(children)
    rendered = await client.get_workflow_handle(children[0]).query("documents")
    assert {str(d["coverage_id"]) for d in rendered} == {c["id"] for c in coverages}
    for documents in rendered:
        run = (await tenant.get(f"/internal/coverages/{documents['coverage_id']}/pricing-runs/1")).json()
        assert run["status"] == "COMPLETED" and run["workflowId"] == catalogue.id
        assert run["factSheetReportFileId"] == str(documents["fact_sheet_file_id"])
        assert run["technicalPricingReportFileId"] == str(documents["technical_report_file_id"])

"""Every recorded history replays on today's workflow code (tests/replay/record.py).

Histories are grouped by label, one per deployed version of the workflows; a workflow that
was running when a version was deployed must still replay after every later change. A
change to a workflow's commands that is not behind `workflow.patched` (or in a new workflow
type) fails here with a non-determinism error: docs/workflow-versioning.md. The replay runs
in the sandbox the workers run (workflows.worker.WORKFLOW_RUNNER: docs/workflow-sandbox.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from models.temporal.converter import data_converter
from workflows.worker import WORKFLOW_RUNNER, WORKFLOWS

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*/*.json"))


def test_histories_of_every_workflow_type_are_recorded():
    types = set()
    for path in HISTORIES:
        first = json.loads(path.read_text())["events"][0]
        types.add(first["workflowExecutionStartedEventAttributes"]["workflowType"]["name"])
    assert types >= {w.__temporal_workflow_definition.name for w in WORKFLOWS}


@pytest.mark.parametrize("path", HISTORIES, ids=[f"{p.parent.name}/{p.stem}" for p in HISTORIES])
async def test_history_replays(path: Path):
    history = WorkflowHistory.from_json(f"replay-{path.parent.name}-{path.stem}", path.read_text())
    result = await Replayer(workflows=WORKFLOWS, data_converter=data_converter, workflow_runner=WORKFLOW_RUNNER).replay_workflow(
        history, raise_on_replay_failure=False
    )
    assert result.replay_failure is None, f"{path.parent.name}/{path.name}: {result.replay_failure}"

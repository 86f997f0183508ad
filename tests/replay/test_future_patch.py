"""A patch added after a run started is asked of `workflow.patched` on that run (issue 33).

`PolicyWorkflow._new_path(patch)` answered True for ANY patch on a run that converts its own
quote (started with a quote id, since issue 9), without asking `workflow.patched`: right for
the patches issue 9 added with it, wrong for every later one. A converting policy in force
when a release adds `_new_path(P)` at a point it already passed on the old code would take
the new branch on replay and fail with a non-determinism error (or, live, take a branch its
history never took).

Here a hypothetical next release adds such a patch: a memo upsert (a command no recorded run
issued, so a run taking the new branch fails its replay) before each monitoring timer. Every
recorded PolicyWorkflow history (converting or not, all started before the change) must
replay on that code: each takes the old branch, because its history holds no marker of the
new patch. On the old `_new_path`, 17 of the 37 fail (every converting run that reached a
monitoring timer).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from models.temporal.converter import data_converter
from models.temporal.policies import POLICY_WORKFLOW, PolicyWorkflowInput
from workflows.policies import PolicyWorkflow
from workflows.worker import WORKFLOWS

HISTORIES = Path(__file__).parent / "histories"


def _policy_histories() -> list[Path]:
    found = []
    for path in sorted(HISTORIES.glob("*/*.json")):
        first = json.loads(path.read_text())["events"][0]["workflowExecutionStartedEventAttributes"]
        if first["workflowType"]["name"] == POLICY_WORKFLOW:
            found.append(path)
    return found


POLICY_HISTORIES = _policy_histories()


@workflow.defn(name=POLICY_WORKFLOW, sandboxed=False)
class PolicyWorkflowNextRelease(PolicyWorkflow):
    """Today's PolicyWorkflow with one change of a later release, behind `_new_path` as the
    rules say (docs/workflow-versioning.md, rule 2)."""

    @workflow.init
    def __init__(self, request: PolicyWorkflowInput) -> None:
        super().__init__(request)

    @workflow.run
    async def run(self, request: PolicyWorkflowInput) -> str:
        return await super().run(request)

    async def _sleep_until(self, moment: dt.datetime, index: int) -> bool:
        if self._new_path(f"policy-next-release-memo-{index}"):
            workflow.upsert_memo({"next-release": index})  # a command no recorded run issued
        return await super()._sleep_until(moment, index)


def test_the_corpus_holds_converting_policies():
    """The check below means something only if runs that convert their quote are in it."""
    converting = 0
    for path in POLICY_HISTORIES:
        first = json.loads(path.read_text())["events"][0]["workflowExecutionStartedEventAttributes"]
        payload = first["input"]["payloads"][0]
        if json.loads(base64.b64decode(payload["data"])).get("quote_id"):
            converting += 1
    assert converting >= 5, converting


@pytest.mark.parametrize("path", POLICY_HISTORIES, ids=[f"{p.parent.name}/{p.stem}" for p in POLICY_HISTORIES])
async def test_a_patch_of_a_later_release_takes_the_old_branch_on_runs_started_before_it(path: Path):
    workflows = [PolicyWorkflowNextRelease, *(w for w in WORKFLOWS if w is not PolicyWorkflow)]
    history = WorkflowHistory.from_json(f"future-{path.parent.name}-{path.stem}", path.read_text())
    result = await Replayer(
        workflows=workflows, data_converter=data_converter, workflow_runner=UnsandboxedWorkflowRunner()
    ).replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.parent.name}/{path.name}: {result.replay_failure}"

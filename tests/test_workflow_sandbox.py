"""The workers' sandbox refuses what makes a workflow non-deterministic (issue 33, section 7).

A throwaway workflow (tests/sandbox_probe.py) reads the clock, draws randomness, makes a
uuid4, opens a file or opens a socket. Under the workers' runner (workflows.worker.
WORKFLOW_RUNNER) each is refused with RestrictedWorkflowAccessError; under the runner the
workers used before (every module passed through) the same workflow ran to completion for
all but open() (a builtin, patched at runtime either way), so this test fails on that code. The worker here fails the workflow on that error (instead of
retrying its task for ever) only so that the test can read the refusal as a result.
"""

from __future__ import annotations

import ast
import uuid
from pathlib import Path

import pytest
from temporalio.client import WorkflowFailureError
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import (
    RestrictedWorkflowAccessError,
    SandboxedWorkflowRunner,
    SandboxRestrictions,
)

from tests.sandbox_probe import PROBES, SandboxProbeWorkflow
from workflows.worker import PASSTHROUGH_MODULES, WORKFLOW_RUNNER

PASS_EVERYTHING = SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_all_modules())


async def _run(client, runner, probe: str) -> str:
    queue = f"sandbox-{uuid.uuid4()}"
    async with Worker(
        client, task_queue=queue, workflows=[SandboxProbeWorkflow], workflow_runner=runner,
        workflow_failure_exception_types=[RestrictedWorkflowAccessError],
    ):
        return await client.execute_workflow(
            SandboxProbeWorkflow.run, probe, id=f"sandbox-probe-{uuid.uuid4()}", task_queue=queue
        )


@pytest.mark.parametrize("probe", sorted(PROBES))
async def test_the_workers_sandbox_refuses_what_a_workflow_must_not_do(temporal_env, probe):
    with pytest.raises(WorkflowFailureError) as refused:
        await _run(temporal_env.client, WORKFLOW_RUNNER, probe)
    cause = refused.value.cause
    assert getattr(cause, "type", None) == "RestrictedWorkflowAccessError", cause
    assert "Cannot access" in str(cause)


@pytest.mark.parametrize("probe", sorted(set(PROBES) - {"open"}))
async def test_every_module_passed_through_let_the_same_workflow_run(temporal_env, probe):
    """The difference the runner makes: the old runner ran these probes to completion (a
    passed-through module is imported with the real datetime, random, uuid and socket).
    The builtin open() is patched at runtime, so the old runner refused that one too."""
    assert await _run(temporal_env.client, PASS_EVERYTHING, probe)


def test_only_deterministic_modules_pass_through():
    """The sandbox keeps its restrictions; nothing with I/O is passed through wholesale."""
    restrictions = WORKFLOW_RUNNER.restrictions
    assert not restrictions.passthrough_all_modules
    assert restrictions.invalid_module_members is SandboxRestrictions.invalid_module_members_default
    assert set(PASSTHROUGH_MODULES) == {"msgspec", "models.domain", "models.temporal", "models.wire"}
    for module in ("workflows", "activities", "models.db", "piccolo", "httpx", "models", "numpy"):
        assert module not in restrictions.passthrough_modules


def _passed_through_imports(path: Path) -> list[str]:
    """The modules `path` imports inside `with workflow.unsafe.imports_passed_through():`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.With) and any("imports_passed_through" in ast.unparse(i.context_expr) for i in node.items):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    found.append(inner.module or "")
                elif isinstance(inner, ast.Import):
                    found += [alias.name for alias in inner.names]
    return found


def test_workflow_code_is_never_passed_through():
    """A workflow module imported inside imports_passed_through() would run unchecked (its
    datetime the real one): activities are passed through by reference, workflows never."""
    root = Path(__file__).resolve().parents[1] / "workflows"
    offenders = {
        path.name: [m for m in _passed_through_imports(path) if m == "workflows" or m.startswith("workflows.")]
        for path in sorted(root.glob("*.py"))
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def _all_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            found.append(node.module or "")
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_activities_are_imported_by_reference_only():
    """Activity modules (database, HTTP, numpy, WeasyPrint) are imported only inside
    imports_passed_through(): the sandbox must not re-import them for each run."""
    root = Path(__file__).resolve().parents[1] / "workflows"
    process = {"worker.py", "observability.py"}  # the worker process, not workflow code
    offenders = {}
    for path in sorted(root.glob("*.py")):
        if path.name in process:
            continue
        outside = list(_all_imports(path))
        for module in _passed_through_imports(path):
            outside.remove(module)
        found = [m for m in outside if m == "activities" or m.startswith("activities.")]
        if found:
            offenders[path.name] = found
    assert offenders == {}


# What the sandbox would refuse in workflow code, spelled as a passed-through module would call it.
NON_DETERMINISTIC = (
    "now(", "today(", "utcnow(", "uuid1(", "uuid4(", "import random", "from random", "time.time(",
    "monotonic(", "open(", "os.environ", "getenv(", "import socket", "subprocess", "import secrets",
)


def test_the_passed_through_packages_call_nothing_non_deterministic():
    """A passed-through module runs outside the sandbox's checks, with the real datetime and
    random: so the packages passed through (PASSTHROUGH_MODULES, the project's) must not call
    the clock, randomness, uuid4 or I/O themselves. Read from the source."""
    root = Path(__file__).resolve().parents[1]
    offenders = {}
    for package in PASSTHROUGH_MODULES:
        if not package.startswith("models."):
            continue
        for path in sorted((root / package.replace(".", "/")).rglob("*.py")):
            code = "\n".join(line.split("#")[0] for line in path.read_text().splitlines())
            found = [word for word in NON_DETERMINISTIC if word in code]
            if found:
                offenders[str(path.relative_to(root))] = found
    assert offenders == {}

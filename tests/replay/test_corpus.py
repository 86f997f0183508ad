"""The replay corpus and the versioning doc keep their promises (docs/workflow-versioning.md).

- Recorded histories are immutable: each file's SHA-256 is in the checked-in manifest
  (`tests/replay/histories/MANIFEST.sha256`, which `tests/replay/record.py` appends to), and
  a history that changed, disappeared or is not in the manifest fails here.
- Every patch id the workflow code can write is in the doc's table, formatted ones too
  (`policy-cancel-settles-first-{}` as `policy-cancel-settles-first-<n>`), and the call
  sites of `background_write` with theirs (`bounded-write-<site>`); and a recorded history
  holds its marker (the new branch replays, not only the old).
- No workflow module binds a module-level name twice (two RENDER_RETRY definitions made the
  coverage documents retry forever, unnoticed, for two releases).
"""

from __future__ import annotations

import ast
import collections
import hashlib
import shutil
import subprocess
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HISTORIES = ROOT / "tests" / "replay" / "histories"
MANIFEST = HISTORIES / "MANIFEST.sha256"
WORKFLOW_MODULES = sorted((ROOT / "workflows").glob("*.py"))
VERSIONING_DOC = ROOT / "docs" / "workflow-versioning.md"


def manifest() -> dict[str, str]:
    entries = {}
    for line in MANIFEST.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split(maxsplit=1)
            entries[name.strip()] = digest
    return entries


def test_recorded_histories_are_the_ones_in_the_manifest_unchanged():
    recorded = {str(p.relative_to(HISTORIES)): hashlib.sha256(p.read_bytes()).hexdigest() for p in HISTORIES.glob("*/*.json")}
    expected = manifest()
    changed = sorted(n for n in expected if n in recorded and recorded[n] != expected[n])
    missing = sorted(n for n in expected if n not in recorded)
    unlisted = sorted(n for n in recorded if n not in expected)
    assert not changed, f"recorded histories changed (they are never re-recorded: record a new label): {changed}"
    assert not missing, f"recorded histories disappeared: {missing}"
    assert not unlisted, f"histories not in {MANIFEST.name} (record.py adds new ones): {unlisted}"


# The last commit that landed (CI green) before issue 25 made the corpus immutable: every
# history it held must be as it held it. Move it on only to a later landed commit.
LANDED = "bd20f1e"


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=HISTORIES.parents[2], capture_output=True, timeout=60)


def _as_committed(path: Path) -> bytes | None:
    """What `path` held at LANDED, or else when it first appeared in a commit (added, or
    moved in); None when git cannot say (the file is not committed yet)."""
    name = str(path.relative_to(HISTORIES.parents[2]))
    landed = _git("show", f"{LANDED}:{name}")
    if landed.returncode == 0:
        return landed.stdout
    # the commit where the path appeared (git's --follow guesses renames by similarity, and
    # recorded histories are alike: it would follow the wrong file)
    commits = _git("log", "--diff-filter=AR", "--format=%H", "--", name).stdout.decode().split()
    if not commits:
        return None
    shown = _git("show", f"{commits[-1]}:{name}")
    return shown.stdout if shown.returncode == 0 else None


def test_recorded_histories_are_as_landed_or_first_committed():
    """The manifest alone cannot catch a history re-recorded with its manifest line edited in
    the same commit: each history must also be byte for byte what the last landed release held
    (LANDED), or, if newer, the file git first received (a retired one moves to
    ../unreplayable, unchanged)."""
    if shutil.which("git") is None or _git("cat-file", "-e", f"{LANDED}^{{commit}}").returncode:
        pytest.skip("no git history here (a source archive): the manifest test stands alone")
    rewritten = [
        str(path.relative_to(HISTORIES))
        for path in sorted(HISTORIES.glob("*/*.json"))
        if (before := _as_committed(path)) is not None and before != path.read_bytes()
    ]
    assert not rewritten, f"recorded histories rewritten (record a new file instead): {rewritten}"


def _pattern(node: ast.expr, constants: dict[str, str]) -> str | None:
    """A patch id as the doc writes it: a literal as is, a formatted one with `<` where its
    value goes (`policy-status-{}` → `policy-status-<`); None if not a string we can read."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return re.sub(r"\{[^}]*\}", "<", node.value)
    if isinstance(node, ast.Name) and node.id in constants:
        return re.sub(r"\{[^}]*\}", "<", constants[node.id])
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "<" for v in node.values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return _pattern(node.func.value, constants)
    return None


def patch_ids_in_the_code() -> dict[str, str]:
    """Every patch id a workflow can write, with where it comes from: the module-level
    PATCH_* constants, the literal ids passed to `patched`/`_new_path`/`db_step(patch=)`,
    and `bounded-write-<site>` for each `background_write(..., site)` call."""
    found: dict[str, str] = {}
    for path in WORKFLOW_MODULES:
        tree = ast.parse(path.read_text())
        constants = {
            t.id: n.value.value
            for n in tree.body
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for name, value in constants.items():
            if name.startswith("PATCH_"):
                found[re.sub(r"\{[^}]*\}", "<", value)] = f"{path.name}: {name}"
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in ("patched", "deprecate_patch", "_new_path") and node.args:
                pattern = _pattern(node.args[0], constants)
                if pattern is not None:
                    found[pattern] = f"{path.name}:{node.lineno}"
            if func == "background_write" and len(node.args) >= 3:
                site = _pattern(node.args[2], constants)
                if site is not None:
                    found[f"bounded-write-{site}"] = f"{path.name}:{node.lineno}"
            for keyword in node.keywords:
                if keyword.arg == "patch":
                    pattern = _pattern(keyword.value, constants)
                    if pattern is not None:
                        found[pattern] = f"{path.name}:{node.lineno}"
    return found


def test_every_patch_id_in_the_code_is_in_the_versioning_doc():
    table = "\n".join(line for line in VERSIONING_DOC.read_text().splitlines() if line.startswith("|"))
    ids = patch_ids_in_the_code()
    assert {"policy-cancel-settles-first-<", "settlement-dispatch-webhooks", "bounded-write-policy-status-<"} <= set(ids)
    missing = {pid: where for pid, where in ids.items() if f"`{pid}" not in table}
    assert not missing, f"patch ids missing from the table of {VERSIONING_DOC.name}: {missing}"


def test_every_patch_id_in_the_code_is_taken_by_a_recorded_history():
    """A replay corpus of every path: each patch the code can take has a history holding its
    marker (runs that crossed a deploy: tests/replay/cross.py), so the new branch replays too,
    not only the old one."""
    import base64
    import json

    markers = set()
    for path in HISTORIES.glob("*/*.json"):
        for event in json.loads(path.read_text())["events"]:
            marker = event.get("markerRecordedEventAttributes")
            if marker and marker["markerName"] == "core_patch":
                data = marker["details"]["patch-data"]["payloads"][0]["data"]
                markers.add(json.loads(base64.b64decode(data))["id"])
    untaken = {
        pid: where for pid, where in patch_ids_in_the_code().items()
        if not any(re.fullmatch(re.escape(pid).replace("<", ".+"), m) for m in markers)
    }
    assert not untaken, f"patch ids no recorded history takes (record one: tests/replay/record.py or cross.py): {untaken}"


def test_workflow_modules_bind_each_module_level_name_once():
    twice = {}
    for path in WORKFLOW_MODULES:
        names = collections.Counter()
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] += 1
        twice.update({f"{path.name}: {n}": c for n, c in names.items() if c > 1})
    assert not twice, f"module-level names bound more than once (the last silently wins): {twice}"


UNREPLAYABLE = Path(__file__).resolve().parent / "unreplayable"
# Recorded histories this code cannot replay, kept (hash-pinned) so the reason stays in view;
# tests/replay/unreplayable/README.md says how each was recorded and what ops do.
KNOWN_UNREPLAYABLE = {
    # 032a8a3's settlement, as first recorded: no dispatch_webhooks after settle_period. Issue
    # 14 added the dispatch twelve minutes later, unmarked, and every release since ran it, so
    # runs without the marker dispatch (docs/workflow-versioning.md, "The v3 settlement
    # histories"); this code was never deployed on its own.
    "v3-settlement-032a8a3.json": (
        "b2705a375fb012c9934d4feeb2aa7235cdb246790f1239509385c8f2b13d8f5e",
        "Activity machine does not handle this event: HistoryEvent(id: 17, UpsertWorkflowSearchAttributes)",
    ),
    # A settlement started on 032a8a3's code (no dispatch) and continued on this code: as
    # fictional as its start (no deployment ran 032a8a3 without issue 14's dispatch).
    "from-v3-settlement-waiting.json": (
        "5d93169aebe429c7677f19e6f9693fbc83275baf7e89a993fb328e07bdbb9eba",
        "Activity machine does not handle this event: HistoryEvent(id: 17, UpsertWorkflowSearchAttributes)",
    ),
    # A v0 draft whose first workflow task (v0's) had no commands, activated on this code by a
    # worker that did not have it cached: the start and the update ran in one live activation
    # (policy-draft-lapses written after the update's marker); a replay runs the first task on
    # its own, takes the old branch there, then meets the marker.
    "from-v0-policy-draft.json": (
        "3d14bd75bf643629c6faab2f443f608f2b9704fc01825ad63eb7fb69962bc65a",
        "patch marker encountered for change policy-draft-lapses, but there is no corresponding change command",
    ),
}


def test_the_unreplayable_histories_are_the_known_ones():
    assert sorted(p.name for p in UNREPLAYABLE.glob("*.json")) == sorted(KNOWN_UNREPLAYABLE)


@pytest.mark.parametrize("name", sorted(KNOWN_UNREPLAYABLE))
async def test_a_known_unreplayable_history_still_fails_as_documented(name: str):
    """If one of them starts to replay (a fix in the SDK, or in the workflow code), move it to
    the corpus (a new label) and update the doc; if it fails otherwise, find out why."""
    from temporalio.client import WorkflowHistory
    from temporalio.worker import Replayer

    from models.temporal.converter import data_converter
    from workflows.worker import WORKFLOW_RUNNER, WORKFLOWS

    digest, reason = KNOWN_UNREPLAYABLE[name]
    path = UNREPLAYABLE / name
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    history = WorkflowHistory.from_json(name, path.read_text())
    result = await Replayer(workflows=WORKFLOWS, data_converter=data_converter, workflow_runner=WORKFLOW_RUNNER).replay_workflow(
        history, raise_on_replay_failure=False
    )
    assert result.replay_failure is not None and "Nondeterminism" in str(result.replay_failure)
    assert reason in str(result.replay_failure)

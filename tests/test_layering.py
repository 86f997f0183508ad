"""Layering that is checked (issue 25): the import contracts of pyproject.toml hold
(`lint-imports`: layers of the packages, of models and of activities; persistence and the
Temporal contract independent), and the Temporal contract declares, it does not act: no
module of models/temporal but the connector calls Temporal (import-linter forbids whole
packages only, so this is read from the source)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "models" / "temporal"
CONNECTOR = "client.py"  # connect(): the one place that makes a Client


def test_the_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "0 broken" in done.stdout


def _client_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("temporalio.client"):
            found.append(f"from {node.module} import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if a.name.startswith("temporalio.client")]
    return found


def _coroutines(path: Path) -> list[str]:
    return [n.name for n in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(n, ast.AsyncFunctionDef)]


def test_the_temporal_contract_does_no_io():
    """Today's defect: models/temporal/settlement.py signalled workflows (`tell_settlements`)
    and models/temporal/observations.py started them, so a store-and-tell could not be read
    as a store and a separate, retried tell. The contract now gives the arguments; api/ and
    activities/ send them."""
    offenders = {
        path.name: _client_imports(path) + [f"async def {name}" for name in _coroutines(path)]
        for path in sorted(CONTRACT.glob("*.py"))
        if path.name != CONNECTOR
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def _layered(container: str) -> set[str]:
    """The modules the `layers` contract of `container` places (pyproject.toml)."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["type"] == "layers" and c.get("containers") == [container]]
    return {name.strip() for layer in contract["layers"] for name in layer.split("|")}


def test_every_activities_module_is_in_a_layer():
    """A module in no layer is checked by no layer: activities.settled_wait (an area: the
    policy's wait for its settlement) and activities.packages were in none, so either could
    have imported any other area unnoticed."""
    package = ROOT / "activities"
    modules = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    modules |= {p.parent.name for p in package.glob("*/__init__.py")}
    assert sorted(modules - _layered("activities")) == []


def test_every_workflow_module_is_under_the_no_database_contract():
    """Issue 33 (7): workflow code runs in the sandbox and imports no database, ORM or HTTP
    client. The contract names its modules (import-linter cannot say "the package but two"):
    a new workflow module must be added to it."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["name"] == "workflow code imports no database, ORM or HTTP client"]
    assert set(contract["forbidden_modules"]) >= {"models.db", "piccolo", "httpx"}
    process = {"__init__", "worker", "observability"}  # the worker process, not workflow code
    modules = {f"workflows.{p.stem}" for p in (ROOT / "workflows").glob("*.py") if p.stem not in process}
    assert set(contract["source_modules"]) == modules

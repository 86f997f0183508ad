"""The secrets key that seals webhook secrets and token signing keys (review of issues 24/25,
finding 1: the sealing key trap), with real `parametric` processes on the suite's database:

- with PostgreSQL, SECRETS_KEY is required: without it each host made a key file of its
  own and sealed what the other hosts could not open; now the API refuses to start, saying
  so (the old code started);
- the database keeps the fingerprints of the keys that sealed in it: an API process, a
  worker or a `keys` command with another SECRETS_KEY refuses (the old code started, sealing and
  unsealing garbage for the others); the new key listed first with the old one after it
  (a rotation) is accepted;
- a database whose sealed values predate the fingerprints: the first key to check must
  open them.
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from models.db.sealing import SecretsKeyMissing, fingerprint, parse_keys
from tests.conftest import free_port

SUITE_KEY = os.environ["WEBHOOK_SECRETS_KEY"]  # tests/conftest.py


def _another_key() -> str:
    return base64.b64encode(os.urandom(32)).decode()


def _env(**env: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if k not in ("SECRETS_KEY", "WEBHOOK_SECRETS_KEY")}
    return {**base, **env}


def _start_api(tmp_path: Path, name: str, env: dict[str, str]) -> tuple[subprocess.Popen, Path, str]:
    port = free_port()
    log = tmp_path / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "api.cli", "api", "--port", str(port)],
                                env={**env, "API_PORT": str(port)}, stdout=out, stderr=out)
    return proc, log, f"http://127.0.0.1:{port}"


async def _exit_code(proc: subprocess.Popen, base: str, seconds: float = 60) -> int | None:
    """The process's exit status once it exits; None if it answers HTTP instead (/health
    answers 503 without the Temporal server these processes are not given)."""
    deadline = time.monotonic() + seconds
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return proc.returncode
            try:
                await client.get(f"{base}/health")
                return None
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.2)
    raise AssertionError("the API neither served nor exited")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        proc.wait(30)


async def _recorded() -> set[str]:
    from models.db.tables import SealingKey

    return {r["fingerprint"] for r in await SealingKey.select(SealingKey.fingerprint)}


def test_an_app_on_postgresql_needs_a_secrets_key(settings):
    from api.app import create_app

    with pytest.raises(SecretsKeyMissing, match="SECRETS_KEY is required with PostgreSQL"):
        create_app(replace(settings, database_url="postgresql://postgres@127.0.0.1:1/parametric", webhook_secrets_key=None))


async def test_an_api_on_postgresql_without_secrets_key_refuses_to_start(tmp_path, database):
    # The suite's PostgreSQL when there is one (the old code served on it), else one never reached.
    url = os.environ.get("TEST_DATABASE_URL") or f"postgresql://postgres@127.0.0.1:{free_port()}/parametric"
    proc, log, base = _start_api(tmp_path, "no-key", _env(DATABASE_URL=url))
    try:
        code = await _exit_code(proc, base)
    finally:
        _stop(proc)
    assert code not in (None, 0), log.read_text()[-3000:]
    assert "SECRETS_KEY is required with PostgreSQL" in log.read_text(), log.read_text()[-3000:]


async def test_a_process_with_another_secrets_key_refuses_to_start(tmp_path, database):
    from models.db.sealing_keys import check_sealing_key
    from models.db.tables import SealingKey

    await check_sealing_key()  # the suite's key sealed here (as any API of the suite records it)
    suite = fingerprint(parse_keys(SUITE_KEY)[0])
    assert suite in await _recorded()

    other = _another_key()
    proc, log, base = _start_api(tmp_path, "other-key", _env(SECRETS_KEY=other))
    try:
        code = await _exit_code(proc, base)
    finally:
        _stop(proc)
    assert code not in (None, 0), "an API with another SECRETS_KEY started"
    assert "SECRETS_KEY is not the key the secrets in this database were sealed with" in log.read_text()

    rotate = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "api.cli", "keys", "rotate"],
                                     env=_env(SECRETS_KEY=other), capture_output=True, text=True, timeout=120)
    assert rotate.returncode != 0 and "SECRETS_KEY is not the key" in rotate.stderr, rotate.stdout + rotate.stderr

    # A rotation: the new key first, the one that sealed here after it.
    proc, log, base = _start_api(tmp_path, "rotation", _env(SECRETS_KEY=f"{other},{SUITE_KEY}"))
    try:
        assert await _exit_code(proc, base) is None, log.read_text()[-3000:]
    finally:
        _stop(proc)
    new = fingerprint(parse_keys(other)[0])
    assert {suite, new} <= await _recorded()
    await SealingKey.delete().where(SealingKey.fingerprint == new)  # the suite's own key alone again


async def test_a_worker_with_another_secrets_key_refuses_to_start(database):
    """The worker opens webhook secrets: with another key it refuses at its start (before
    it reaches Temporal: none is given here), as without one on PostgreSQL."""
    from models.db.sealing_keys import check_sealing_key

    await check_sealing_key()
    closed = f"127.0.0.1:{free_port()}"
    for env, words in ((_env(SECRETS_KEY=_another_key()), "SECRETS_KEY is not the key"),
                       (_env(DATABASE_URL=os.environ.get("TEST_DATABASE_URL")
                             or f"postgresql://postgres@127.0.0.1:{free_port()}/parametric"),
                        "SECRETS_KEY is required with PostgreSQL")):
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "workflows.worker", "--queue", "webhooks"],
            env={**env, "TEMPORAL_ADDRESS": closed}, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode != 0 and words in done.stdout + done.stderr, (done.stdout + done.stderr)[-3000:]


async def test_the_first_key_recorded_must_open_what_is_sealed_already(database, settings, monkeypatch):
    """A database from before the fingerprints: nothing recorded, a signing key sealed."""
    from api.auth.keys import ensure_keys
    from models.db import sealing, sealing_keys
    from models.db.tables import SealingKey

    await ensure_keys(settings)  # a current signing key, sealed with the suite's key
    await SealingKey.delete(force=True)
    try:
        monkeypatch.setenv("SECRETS_KEY", _another_key())
        with pytest.raises(sealing_keys.SealingKeyMismatch, match="does not open"):
            await sealing_keys.check_sealing_key()
        assert await _recorded() == set()
    finally:
        monkeypatch.delenv("SECRETS_KEY")
        sealing._keys_for.cache_clear()
        sealing_keys._checked.clear()  # checked once per process: check again
        await sealing_keys.check_sealing_key()
    assert await _recorded() == {fingerprint(parse_keys(SUITE_KEY)[0])}

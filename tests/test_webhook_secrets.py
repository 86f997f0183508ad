"""Webhook secrets sealed at rest (models/db/webhook_secrets.py) and var/ readable by the
service's user only (models/private_files.py): the key from WEBHOOK_SECRETS_KEY or a 0600
key file, rows of before sealing still read and sealed by the migration (and unsealed going
back), var/ 0700 and the SQLite file 0600 however they were before."""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from models.db import webhook_secrets
from models.db.webhook_secrets import SecretUnreadable, parse_keys, seal, unseal
from tests.test_migrations import own_database

KEY_1 = base64.b64encode(b"1" * 32).decode()
KEY_2 = base64.urlsafe_b64encode(b"2" * 32).decode().rstrip("=")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_sealed_secret_opens_only_for_its_endpoint_and_key(monkeypatch):
    from models.db.webhooks import new_secret

    monkeypatch.setenv("WEBHOOK_SECRETS_KEY", KEY_1)
    secret, endpoint = new_secret(), uuid.uuid4()
    stored = seal(secret, endpoint)
    assert stored.startswith("enc1:") and len(stored) <= 100 and secret.removeprefix("whsec_") not in stored
    assert seal(secret, endpoint) != stored  # a fresh nonce each time
    assert unseal(stored, endpoint) == secret
    with pytest.raises(SecretUnreadable):
        unseal(stored, uuid.uuid4())  # copied to another endpoint's row
    assert unseal(secret, endpoint) == secret  # a row of before sealing
    # A new key first, the old one after it: old secrets still open, new ones use the new key.
    monkeypatch.setenv("WEBHOOK_SECRETS_KEY", f"{KEY_2},{KEY_1}")
    assert unseal(stored, endpoint) == secret
    monkeypatch.setenv("WEBHOOK_SECRETS_KEY", KEY_2)
    with pytest.raises(SecretUnreadable, match="WEBHOOK_SECRETS_KEY"):
        unseal(stored, endpoint)
    for bad, words in (("not base64!", "base64"), (base64.b64encode(b"short").decode(), "32 bytes"), (",", "no key")):
        with pytest.raises(ValueError, match=words):
            parse_keys(bad)


def test_without_a_configured_key_one_is_kept_in_var_keys_0600(tmp_path, monkeypatch):
    monkeypatch.delenv("WEBHOOK_SECRETS_KEY", raising=False)
    webhook_secrets._keys_for.cache_clear()
    try:
        first = webhook_secrets._keys_for(None, tmp_path)
        path = tmp_path / "keys" / "webhook-secrets.key"
        assert _mode(path) == 0o600 and _mode(path.parent) == 0o700 and len(first[0]) == 32
        webhook_secrets._keys_for.cache_clear()
        assert webhook_secrets._keys_for(None, tmp_path) == first  # read back, not made anew
        assert [p.name for p in path.parent.iterdir()] == ["webhook-secrets.key"]  # no temporary file left
    finally:
        webhook_secrets._keys_for.cache_clear()


async def test_plain_secrets_of_before_are_read_and_sealed_by_the_migration(database):
    from models.clock import utcnow
    from models.db import webhooks as webhooks_db
    from models.db.tables import WebhookEndpoint

    endpoint_id, plain, now = uuid.uuid4(), webhooks_db.new_secret(), utcnow()
    await WebhookEndpoint.insert(WebhookEndpoint(id=endpoint_id, tenant_id=uuid.uuid4(), url="https://93.184.216.34/h",
                                                 event_types=["*"], secret=plain, created_at=now, updated_at=now))
    row = await WebhookEndpoint.select().where(WebhookEndpoint.id == endpoint_id).first()
    assert webhooks_db.signing_secrets(row, now) == [plain]  # still signs as it is
    assert await webhooks_db.seal_plain_secrets() >= 1
    row = await WebhookEndpoint.select().where(WebhookEndpoint.id == endpoint_id).first()
    assert row["secret"].startswith("enc1:") and webhooks_db.signing_secrets(row, now) == [plain]
    assert await webhooks_db.seal_plain_secrets() == 0  # nothing left in the clear


MIGRATION_SCRIPT = textwrap.dedent(
    """
    import asyncio, uuid
    from piccolo.apps.migrations.commands.backwards import BackwardsMigrationManager
    from models.db.core import migrate
    from models.db import webhooks as webhooks_db
    from models.db.tables import WebhookEndpoint
    from piccolo.engine.finder import engine_finder

    async def stored(endpoint_id):
        rows = await WebhookEndpoint.raw("SELECT secret FROM webhook_endpoint WHERE id = {}", endpoint_id)
        return rows[0]["secret"]

    async def main():
        await migrate()
        row = await webhooks_db.create_endpoint(str(uuid.uuid4()), "https://93.184.216.34/h", ["*"], "")
        assert (await stored(row["id"])).startswith("enc1:")
        # Back to before sealing: the code of then reads the secret in the clear.
        result = await BackwardsMigrationManager(
            app_name="parametric", migration_id="2026-11-26T03:10:00:000000", auto_agree=True
        ).run()
        assert result.success, result.message
        assert await stored(row["id"]) == row["secret"]
        await migrate()  # forwards again: sealed
        sealed = await stored(row["id"])
        assert sealed.startswith("enc1:") and webhooks_db.unseal(sealed, row["id"]) == row["secret"]
        print("ok", engine_finder().engine_type)

    asyncio.run(main())
    """
)


def test_the_migration_seals_secrets_and_going_back_unseals_them(tmp_path):
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(tmp_path), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)
    with own_database() as url:
        if url:
            env["DATABASE_URL"] = url
        done = subprocess.run([sys.executable, "-c", MIGRATION_SCRIPT], env=env, capture_output=True, text=True, timeout=180)
    engine = "postgres" if url else "sqlite"
    assert done.returncode == 0 and done.stdout.strip().endswith(f"ok {engine}"), done.stdout[-2000:] + done.stderr[-3000:]


PERMISSIONS_SCRIPT = textwrap.dedent(
    """
    import asyncio, os
    os.umask(0o022)
    from models.db.core import close_pool, migrate, open_pool

    async def main():
        await open_pool()
        await migrate()
        await close_pool()

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("existing", [False, True], ids=["new", "of-an-older-install"])
def test_var_is_0700_and_the_database_file_0600(tmp_path, existing):
    var = tmp_path / "deeper" / "var"
    if existing:  # as an older install left them: world-readable
        var.mkdir(parents=True, mode=0o755)
        os.chmod(var, 0o755)
        (var / "parametric.sqlite").touch()
        os.chmod(var / "parametric.sqlite", 0o644)
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(var), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)  # the SQLite file, whichever database the suite runs on
    done = subprocess.run([sys.executable, "-c", PERMISSIONS_SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert _mode(var) == 0o700
    files = [p for p in var.iterdir() if p.name.startswith("parametric.sqlite")]
    assert files and all(_mode(p) == 0o600 for p in files), {p.name: oct(_mode(p)) for p in files}


def test_make_devs_temporal_database_directory_is_private(tmp_path):
    from api.dev import dev_server_config, temporal_command
    from models.settings import load_settings

    cfg = {**dev_server_config(), "db_filename": str(tmp_path / "var" / "temporal" / "temporal.db")}
    old = os.umask(0o022)
    try:
        temporal_command(cfg, load_settings(), "temporal")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "var") == 0o700 and _mode(tmp_path / "var" / "temporal") == 0o700

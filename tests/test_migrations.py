"""The checked-in migrations go forwards, back past the policy counters, and forwards again
on a database of their own (a subprocess: the suite's database stays as it is)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import asyncio, datetime as dt, uuid
    from piccolo.apps.migrations.commands.backwards import BackwardsMigrationManager
    from models.db.core import migrate
    from models.db.tables import Policy, PolicyCount

    def policy(tenant):
        now = dt.datetime.now(dt.timezone.utc)
        return Policy(id=uuid.uuid4(), tenant_id=tenant, quote_id=uuid.uuid4(), kind="TENANT", name="p",
                      status="CREATED", inception_date=dt.date(2027, 1, 1), expiry_date=dt.date(2027, 12, 31),
                      currency="INR", total_sum_insured_minor=1, gross_premium_minor=1, created_at=now, updated_at=now)

    async def main():
        tenant = uuid.uuid4()
        await migrate()
        await Policy.insert(policy(tenant))
        # Back to before the counters (the "policy counts" migration is undone too).
        result = await BackwardsMigrationManager(
            app_name="parametric", migration_id="2026-11-22T03:00:12:629540", auto_agree=True
        ).run()
        assert result.success, result.message
        await Policy.insert(policy(tenant))  # no trigger left pointing at a dropped table
        await migrate()  # forwards again: the backfill counts both policies
        rows = await PolicyCount.select(PolicyCount.n).where(PolicyCount.tenant_id == tenant)
        assert rows == [{"n": 2}], rows
        await Policy.insert(policy(tenant))
        rows = await PolicyCount.select(PolicyCount.n).where(PolicyCount.tenant_id == tenant)
        assert rows == [{"n": 3}], rows
        print("ok")

    asyncio.run(main())
    """
)


def test_migrations_go_back_past_the_policy_counters_and_forwards_again(tmp_path):
    env = {**os.environ, "PARAMETRIC_VAR_DIR": str(tmp_path), "PICCOLO_CONF": "models.db.piccolo_conf"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout[-2000:] + done.stderr[-2000:]

"""Triggers that keep `policy_count` equal to the policies per tenant and status.

GET /policies answers totalElements from these counters (a handful of rows) instead of
counting a tenant's policies on every page; a filter by period still counts rows. Triggers
keep them exact whoever writes `policy` (activities, the CLI, a bench seed), inside the
writing transaction."""

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-22T03:00:13:000000"
VERSION = "1.38.0"
DESCRIPTION = "policy count triggers"

SQLITE = [
    "CREATE UNIQUE INDEX IF NOT EXISTS policy_count_key ON policy_count (tenant_id, status)",
    """CREATE TRIGGER IF NOT EXISTS policy_count_insert AFTER INSERT ON policy BEGIN
         INSERT INTO policy_count (tenant_id, status, n) VALUES (NEW.tenant_id, NEW.status, 1)
           ON CONFLICT (tenant_id, status) DO UPDATE SET n = n + 1;
       END""",
    """CREATE TRIGGER IF NOT EXISTS policy_count_status AFTER UPDATE OF status ON policy
       WHEN OLD.status IS NOT NEW.status BEGIN
         UPDATE policy_count SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND status = OLD.status;
         INSERT INTO policy_count (tenant_id, status, n) VALUES (NEW.tenant_id, NEW.status, 1)
           ON CONFLICT (tenant_id, status) DO UPDATE SET n = n + 1;
       END""",
    """CREATE TRIGGER IF NOT EXISTS policy_count_delete AFTER DELETE ON policy BEGIN
         UPDATE policy_count SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND status = OLD.status;
       END""",
]

POSTGRES = [
    "CREATE UNIQUE INDEX IF NOT EXISTS policy_count_key ON policy_count (tenant_id, status)",
    """CREATE OR REPLACE FUNCTION policy_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP IN ('UPDATE', 'DELETE') THEN
           UPDATE policy_count SET n = n - 1 WHERE tenant_id = OLD.tenant_id AND status = OLD.status;
         END IF;
         IF TG_OP IN ('INSERT', 'UPDATE') THEN
           INSERT INTO policy_count (tenant_id, status, n) VALUES (NEW.tenant_id, NEW.status, 1)
             ON CONFLICT (tenant_id, status) DO UPDATE SET n = policy_count.n + 1;
         END IF;
         RETURN NULL;
       END $$""",
    "DROP TRIGGER IF EXISTS policy_count_rows ON policy",
    """CREATE TRIGGER policy_count_rows AFTER INSERT OR DELETE ON policy
       FOR EACH ROW EXECUTE FUNCTION policy_count_change()""",
    "DROP TRIGGER IF EXISTS policy_count_status ON policy",
    """CREATE TRIGGER policy_count_status AFTER UPDATE OF status ON policy
       FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION policy_count_change()""",
]

# The policies written before the triggers existed.
BACKFILL = [
    "DELETE FROM policy_count",
    """INSERT INTO policy_count (tenant_id, status, n)
       SELECT tenant_id, status, COUNT(*) FROM policy GROUP BY tenant_id, status""",
]


DROP_SQLITE = [
    "DROP TRIGGER IF EXISTS policy_count_insert",
    "DROP TRIGGER IF EXISTS policy_count_status",
    "DROP TRIGGER IF EXISTS policy_count_delete",
    "DROP INDEX IF EXISTS policy_count_key",
]
DROP_POSTGRES = [
    "DROP TRIGGER IF EXISTS policy_count_rows ON policy",
    "DROP TRIGGER IF EXISTS policy_count_status ON policy",
    "DROP FUNCTION IF EXISTS policy_count_change()",
    "DROP INDEX IF EXISTS policy_count_key",
]


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)

    async def create_triggers():
        engine = engine_finder()
        for statement in (SQLITE if engine.engine_type == "sqlite" else POSTGRES) + BACKFILL:
            await engine.run_ddl(statement)

    async def drop_triggers():  # before the previous migration drops policy_count
        engine = engine_finder()
        for statement in DROP_SQLITE if engine.engine_type == "sqlite" else DROP_POSTGRES:
            await engine.run_ddl(statement)

    manager.add_raw(create_triggers)
    manager.add_raw_backwards(drop_triggers)
    return manager

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

ID = "2026-11-29T08:00:01:000000"
VERSION = "1.38.0"
DESCRIPTION = "the readers of files stored before: the most restrictive each kind allows"

CATALOGUE_KINDS = "('fact-sheet', 'technical-pricing-report')"

# Files of no tenant were served to every tenant (issue 33): a candidate run's documents
# (named `…-candidate.pdf`) become the actuaries' only (a published run has documents of its
# own, the catalogue's); the whole book's portfolio risk report, stored as the platform
# tenant's, the operations staff's; a tenant's portfolio risk report its own and the operations
# staff's (who read it through /internal/portfolio/report.pdf?tenantId=). Every other file
# stays OWNER of its tenant (none: nobody's).
BACKFILL = [
    f"UPDATE stored_file SET audience = 'CATALOGUE', staff_roles = '' WHERE tenant_id IS NULL "
    f"AND kind IN {CATALOGUE_KINDS} AND filename NOT LIKE '%-candidate.pdf'",
    f"UPDATE stored_file SET audience = 'STAFF', staff_roles = 'actuary' WHERE tenant_id IS NULL "
    f"AND kind IN {CATALOGUE_KINDS} AND filename LIKE '%-candidate.pdf'",
    "UPDATE stored_file SET audience = 'STAFF', staff_roles = 'operations', tenant_id = NULL "
    "WHERE kind = 'portfolio-risk-report' AND tenant_id IN (SELECT id FROM tenant WHERE kind = 'PLATFORM')",
    "UPDATE stored_file SET staff_roles = 'operations' WHERE kind = 'portfolio-risk-report' "
    "AND audience = 'OWNER' AND tenant_id IS NOT NULL",
]


async def backfill():
    engine = engine_finder()
    for statement in BACKFILL:
        await engine.run_ddl(statement)


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(backfill)  # backwards: the previous migration drops the columns
    return manager

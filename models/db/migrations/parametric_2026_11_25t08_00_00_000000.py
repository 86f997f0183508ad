from models.db.index_migrations import index_migration

ID = "2026-11-25T08:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "settlement read indexes"

# Settlement reads the policies holding a coverage (policy_item by coverage, in policy
# order, page by page), a coverage's events (its totals) and a line item's (was it settled
# before?): without these, each was a
# scan of the whole table (120,000 policy items at 10,000 policies: 37 ms a look-up).
INDEXES = {
    "policy_item_coverage_policy": 'policy_item ("coverage_id", "policy_id")',
    "parametric_event_coverage_id": 'parametric_event ("coverage_id")',
    "parametric_event_line_item_id": 'parametric_event ("line_item_id")',
}


async def forwards():
    return index_migration(ID, DESCRIPTION, INDEXES)

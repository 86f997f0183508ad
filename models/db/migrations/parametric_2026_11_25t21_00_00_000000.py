from models.db.index_migrations import index_migration

ID = "2026-11-25T21:00:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "line items of a policy by period"

# Settlement finds the line items over one period of the policies holding a coverage (the
# classification pass and the set-based events of uniform line items,
# models/db/settlement_sql.py). By `line_item_policy_id` alone each look-up read every line
# item of the policy (a 12-month policy: twelve rows of about 1.3 kB, covers included) to
# keep one; with the period in the index only that one is read. The 20 event statements of
# a month end (10,000 policies, captured and replayed on SQLite): 275 ms to 249 ms.
# `line_item_policy_id` is now a prefix of this one; it stays, as `LineItem.policy_id`
# declares it (`index=True`) and Piccolo's migrations keep the tables and the classes alike.
INDEXES = {
    "line_item_policy_period": 'line_item ("policy_id", "period_start", "period_end")',
}


async def forwards():
    return index_migration(ID, DESCRIPTION, INDEXES)

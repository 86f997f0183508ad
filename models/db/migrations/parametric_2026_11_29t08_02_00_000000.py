from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder

from models.domain.identity import EMAIL_MAX, KEY_LENGTH, identity_key

ID = "2026-11-29T08:02:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "staff are people: an e-mail (person key) and unique identity keys of names and e-mails (issue 33)"

NAME_KEY_INDEX = "api_client_name_key_unique"
EMAIL_KEY_INDEX = "api_client_email_key_unique"
COLUMNS = {"email": EMAIL_MAX, "name_key": KEY_LENGTH, "email_key": KEY_LENGTH}


async def staff_identity_keys():
    """The columns, then every staff client's name key (models/domain/identity.py), oldest
    first. A later staff client whose name has an earlier one's key (a case variant or a
    look-alike: the second identity of issue 33) is disabled and keeps no key, so the unique
    index holds; operations create that person again with an e-mail if they are another
    person. Staff created before have no e-mail (`parametric staff list` shows them without).
    Raw SQL throughout: Piccolo runs a migration's raw steps before its column steps."""
    engine = engine_finder()
    for column, length in COLUMNS.items():
        await engine.run_ddl(f"ALTER TABLE api_client ADD COLUMN {column} VARCHAR({length}) NULL")
    rows = await engine.run_ddl("SELECT id, name FROM api_client WHERE roles <> '' ORDER BY created_at, id")
    taken: set[str] = set()
    for row in rows or []:
        key = identity_key(row["name"])
        if key in taken:
            await engine.run_ddl(f"UPDATE api_client SET disabled = TRUE WHERE id = '{row['id']}'")
            continue
        taken.add(key)
        literal = key.replace("'", "''")
        await engine.run_ddl(f"UPDATE api_client SET name_key = '{literal}' WHERE id = '{row['id']}'")
    await engine.run_ddl(f"CREATE UNIQUE INDEX IF NOT EXISTS {NAME_KEY_INDEX} ON api_client (name_key)")
    await engine.run_ddl(f"CREATE UNIQUE INDEX IF NOT EXISTS {EMAIL_KEY_INDEX} ON api_client (email_key)")


async def drop_staff_identity_keys():
    engine = engine_finder()
    for index in (NAME_KEY_INDEX, EMAIL_KEY_INDEX):
        await engine.run_ddl(f"DROP INDEX IF EXISTS {index}")
    for column in COLUMNS:
        await engine.run_ddl(f"ALTER TABLE api_client DROP COLUMN {column}")


async def forwards():
    manager = MigrationManager(migration_id=ID, app_name="parametric", description=DESCRIPTION)
    manager.add_raw(staff_identity_keys)
    manager.add_raw_backwards(drop_staff_identity_keys)
    return manager

from piccolo.apps.migrations.auto.migration_manager import MigrationManager
from piccolo.engine.finder import engine_finder
from piccolo.columns.column_types import BigInt
from piccolo.columns.column_types import Date
from piccolo.columns.column_types import Integer
from piccolo.columns.column_types import JSON
from piccolo.columns.column_types import Numeric
from piccolo.columns.column_types import Timestamptz
from piccolo.columns.column_types import UUID
from piccolo.columns.column_types import Varchar
from piccolo.columns.defaults.date import DateNow
from piccolo.columns.defaults.timestamptz import TimestamptzNow
from piccolo.columns.defaults.uuid import UUID4
from piccolo.columns.indexes import IndexMethod
import decimal

ID = "2026-11-25T11:02:58:126881"
VERSION = "1.38.0"
DESCRIPTION = "travel coverages"

# A stay's hotel-rain covers share target, index and period and differ in their trigger:
# the coverage key takes the trigger in (a monthly catalogue slot still has one coverage,
# its id following from the slot).
OLD_KEY = "(monitoring_target_id, index_definition_id, risk_period_start, risk_period_end)"
NEW_KEY = "(monitoring_target_id, index_definition_id, risk_period_start, risk_period_end, trigger)"


async def _rekey(columns: str) -> None:
    engine = engine_finder()
    await engine.run_ddl("DROP INDEX IF EXISTS coverage_target_index_period")
    await engine.run_ddl(f"CREATE UNIQUE INDEX IF NOT EXISTS coverage_target_index_period ON coverage {columns}")


async def forwards():
    manager = MigrationManager(
        migration_id=ID, app_name="parametric", description=DESCRIPTION
    )

    manager.add_table(
        class_name="TravelCoverage",
        tablename="travel_coverage",
        schema=None,
        columns=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="coverage_id",
        db_column_name="coverage_id",
        column_class_name="UUID",
        column_class=UUID,
        params={
            "default": UUID4(),
            "null": False,
            "primary_key": True,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="monitoring_target_id",
        db_column_name="monitoring_target_id",
        column_class_name="Varchar",
        column_class=Varchar,
        params={
            "length": 40,
            "default": "",
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="first_night",
        db_column_name="first_night",
        column_class_name="Date",
        column_class=Date,
        params={
            "default": DateNow(),
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="last_night",
        db_column_name="last_night",
        column_class_name="Date",
        column_class=Date,
        params={
            "default": DateNow(),
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="trigger",
        db_column_name="trigger",
        column_class_name="Numeric",
        column_class=Numeric,
        params={
            "default": decimal.Decimal("0"),
            "digits": (12, 8),
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="night_counts",
        db_column_name="night_counts",
        column_class_name="JSON",
        column_class=JSON,
        params={
            "default": "{}",
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="simulations",
        db_column_name="simulations",
        column_class_name="Integer",
        column_class=Integer,
        params={
            "default": 0,
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="seed",
        db_column_name="seed",
        column_class_name="BigInt",
        column_class=BigInt,
        params={
            "default": 0,
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="model_version",
        db_column_name="model_version",
        column_class_name="Varchar",
        column_class=Varchar,
        params={
            "length": 80,
            "default": "",
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="data_hash",
        db_column_name="data_hash",
        column_class_name="Varchar",
        column_class=Varchar,
        params={
            "length": 80,
            "default": "",
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="workflow_id",
        db_column_name="workflow_id",
        column_class_name="Varchar",
        column_class=Varchar,
        params={
            "length": 200,
            "default": "",
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    manager.add_column(
        table_class_name="TravelCoverage",
        tablename="travel_coverage",
        column_name="created_at",
        db_column_name="created_at",
        column_class_name="Timestamptz",
        column_class=Timestamptz,
        params={
            "default": TimestamptzNow(),
            "null": False,
            "primary_key": False,
            "unique": False,
            "index": False,
            "index_method": IndexMethod.btree,
            "choices": None,
            "db_column_name": None,
            "secret": False,
        },
        schema=None,
    )

    async def rekey():
        await _rekey(NEW_KEY)

    async def rekey_back():
        await _rekey(OLD_KEY)

    manager.add_raw(rekey)
    manager.add_raw_backwards(rekey_back)
    return manager

"""Piccolo engine chosen by DATABASE_URL: SQLite file by default, PostgreSQL by URL."""

from piccolo.conf.apps import AppRegistry
from piccolo.engine.postgres import PostgresEngine

from models.db.sqlite_engine import PooledSQLiteEngine
from models.settings import load_settings

_settings = load_settings()

if _settings.is_postgres:
    DB = PostgresEngine(config={"dsn": _settings.database_url})
else:
    _settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    # A generous busy timeout: the API, the worker and the CLI write to one file.
    DB = PooledSQLiteEngine(path=str(_settings.sqlite_path), timeout=30)

APP_REGISTRY = AppRegistry(apps=["models.db.piccolo_app"])

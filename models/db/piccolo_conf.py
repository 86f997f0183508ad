"""Piccolo engine chosen by DATABASE_URL: SQLite file by default, PostgreSQL by URL."""

from piccolo.conf.apps import AppRegistry
from piccolo.engine.postgres import PostgresEngine

from models.db.sqlite_engine import PooledSQLiteEngine
from models.private_files import private_dir, private_file
from models.settings import load_settings

_settings = load_settings()
private_dir(_settings.var_dir)  # 0700: the database, keys and credentials live there

if _settings.is_postgres:
    DB = PostgresEngine(config={"dsn": _settings.database_url})
else:
    private_dir(_settings.sqlite_path.parent, tighten=False)
    private_file(_settings.sqlite_path)  # 0600, before SQLite creates it world-readable
    # A generous busy timeout: the API, the worker and the CLI write to one file.
    DB = PooledSQLiteEngine(path=str(_settings.sqlite_path), timeout=30)

APP_REGISTRY = AppRegistry(apps=["models.db.piccolo_app"])

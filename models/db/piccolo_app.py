"""The single Piccolo app of the service; migrations live in models/db/migrations."""

import os

from piccolo.conf.apps import AppConfig, table_finder

APP_CONFIG = AppConfig(
    app_name="parametric",
    migrations_folder_path=os.path.join(os.path.dirname(__file__), "migrations"),
    table_classes=table_finder(modules=["models.db.tables"], exclude_imported=True),
    migration_dependencies=[],
    commands=[],
)

"""Domain model: wire types, tables, migrations, the Temporal data converter and ids.

Imports nothing else of the project, so workflows, activities and the API all build on it.
"""

import os

# Piccolo finds its engine through this module; set before any table is touched.
os.environ.setdefault("PICCOLO_CONF", "models.db.piccolo_conf")

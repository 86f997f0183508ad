"""The API documentation page at /schema, served whole by this service: Swagger UI 5 from the
installed `swagger-ui-py` package (its static files, Apache-2.0), so the page renders with no
network (it loaded `@scalar/api-reference@latest` from a CDN, without integrity, and was blank
offline). Its assets are public, under /schema/assets (api/auth/roles.py: PUBLIC_PREFIXES)."""

from __future__ import annotations

from pathlib import Path

import swagger_ui
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router

ASSETS_PATH = "/schema/assets"
ASSETS_DIR = Path(swagger_ui.__file__).resolve().parent / "static"
ASSETS = ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css", "favicon-32x32.png")


def viewer() -> SwaggerRenderPlugin:
    """Swagger UI at /schema (and /schema/swagger), every file it loads from this service."""
    return SwaggerRenderPlugin(
        path=["/", "/swagger"],
        js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        css_url=f"{ASSETS_PATH}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS_PATH}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS_PATH}/favicon-32x32.png'>",
    )


def assets_router():
    """The viewer's static files; refuses to start without them."""
    missing = [name for name in ASSETS if not (ASSETS_DIR / name).is_file()]
    if missing:
        raise RuntimeError(f"swagger-ui-py is installed without {missing} (reinstall it: make install)")
    return create_static_files_router(
        path=ASSETS_PATH, directories=[ASSETS_DIR], include_in_schema=False, name="schema-assets"
    )

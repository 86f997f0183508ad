"""Calibrated site models, built once per target, model version and worker process."""

from __future__ import annotations

import functools
import threading

from models.temporal.catalogue import SiteRef
from models.settings import DATA_DIR

_lock = threading.Lock()


@functools.lru_cache(maxsize=256)
def _build(district: str, state: str, latitude: float, longitude: float, model_version: str):
    from activities.pricing.frozen import engine_for

    engine = engine_for(model_version)
    return engine.build_site_model(engine.load_climate_data(DATA_DIR), district, state, latitude, longitude)


def site_model(site: SiteRef, model_version: str | None = None):
    """The target's models under `model_version` (None: the live one; an older kept version
    builds them with its own frozen engine, so a rerun reproduces its figures)."""
    from activities.pricing.version import MODEL_VERSION

    # One calibration at a time: concurrent first requests for a target would all fit it.
    with _lock:
        return _build(site.district, site.state, site.latitude, site.longitude, model_version or MODEL_VERSION)

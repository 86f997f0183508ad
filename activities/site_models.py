"""Calibrated site models, built once per target per worker process."""

from __future__ import annotations

import functools
import threading

from models.temporal.catalogue import SiteRef
from models.settings import DATA_DIR

_lock = threading.Lock()


@functools.lru_cache(maxsize=256)
def _build(district: str, state: str, latitude: float, longitude: float):
    from activities.pricing import build_site_model, load_climate_data

    return build_site_model(load_climate_data(DATA_DIR), district, state, latitude, longitude)


def site_model(site: SiteRef):
    # One calibration at a time: concurrent first requests for a target would all fit it.
    with _lock:
        return _build(site.district, site.state, site.latitude, site.longitude)

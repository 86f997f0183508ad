"""Calibrated site models, built once per target, model version and worker process."""

from __future__ import annotations

import functools
import importlib
import logging
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


WARM_UP_PIN = "560001"  # a fit whose first use builds the engine's per-process tables


def warm_up(modules: tuple[str, ...] = ()) -> None:
    """Load in a fresh pricing process what every target's first pricing needs: the pricing
    activities' `modules` (numpy, scipy and the engine with them), the live engine's
    calibration data and the tables its first fit builds (the district gazetteer), about 2 s
    together once per process, so that the first quote after a worker starts pays for none
    of it. A failure is left for the first activity to meet."""
    try:
        for name in modules:
            importlib.import_module(name)
        from activities.pricing.frozen import engine_for
        from activities.pricing.version import MODEL_VERSION

        engine = engine_for(MODEL_VERSION)
        climate = engine.load_climate_data(DATA_DIR)
        site = engine.pincode_site(climate, WARM_UP_PIN)
        engine.build_site_model(climate, site.query_district, site.query_state, site.latitude, site.longitude)
    except Exception:  # noqa: BLE001 - the process must start whatever the data says
        logging.getLogger("parametric.worker").warning("pricing warm-up failed", exc_info=True)

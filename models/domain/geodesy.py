"""Great-circle distance, the one measure of "how far" the price and the settlement share: a
target's IMD 1° temperature cell (models/domain/tmax_cells.py) and the distance from a
cyclone's centre (models/domain/cyclone_wind.py) are both measured with it."""

from __future__ import annotations

import numpy as np

EARTH_RADIUS_KM = 6371.0088  # mean Earth radius (IUGG)


def great_circle_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km by the haversine formula (arrays broadcast); inputs in
    decimal degrees. The same arithmetic as the pricing's geography, so a distance is the
    same float on both sides."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))

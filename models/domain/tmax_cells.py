"""The IMD 1° gridded daily maximum temperature grid (Srivastava, Rajeevan & Kshirsagar 2009)
and which of its cells a monitoring target is: the cell the heat price is fitted on is the
cell the heat cover settles on (data set `IMD-TMAX-1DEG`, docs/observations.md).

The grid: 31 × 31 cells, centres at latitudes 7.5–37.5 °N and longitudes 67.5–97.5 °E in
1° steps; a cell is named by its centre, `<lat>N_<lon>E` ("12.5N_77.5E"). Only land cells
carry values (362 of them). A target's cell is the land cell whose centre is nearest to the
target's coordinates (great circle), among the cells the price has parameters for
(models/data/calibration/heat_cells.csv): the pricing (activities/pricing/temperature.py)
and the IMD provider (activities/providers/imd_grid.py) both call `nearest_cell` on that
list, so they cannot pick different cells.
"""

from __future__ import annotations

import numpy as np

from models.domain.geodesy import great_circle_km

LAT0, LON0, STEP, CELLS = 7.5, 67.5, 1.0, 31  # the archive grid (first centre, step, cells per axis)


def cell_name(lat: float, lon: float) -> str:
    """A cell's name from its centre: `12.5N_77.5E`."""
    return f"{lat:g}N_{lon:g}E"


def nearest_cell(lat: float, lon: float, cell_lats: np.ndarray, cell_lons: np.ndarray) -> tuple[int, float]:
    """(position in the list, distance in km) of the cell centre nearest to (lat, lon)."""
    dist = great_circle_km(lat, lon, cell_lats, cell_lons)
    c = int(np.argmin(dist))
    return c, float(dist[c])


def grid_position(lat: float, lon: float, first_lat: float = LAT0, first_lon: float = LON0,
                  step: float = STEP) -> tuple[int, int]:
    """(row, column) of the grid point at (lat, lon) in a grid whose first point is
    (first_lat, first_lon) and whose spacing is `step` degrees (rows: latitudes south to
    north; columns: longitudes west to east). Raises ValueError off the grid's points."""
    i, j = (lat - first_lat) / step, (lon - first_lon) / step
    row, col = int(round(i)), int(round(j))
    if abs(i - row) > 1e-6 or abs(j - col) > 1e-6:
        raise ValueError(f"({lat}, {lon}) is not a point of the grid from ({first_lat}, {first_lon}) by {step}°")
    return row, col

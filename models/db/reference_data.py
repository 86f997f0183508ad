"""Reference data: monitoring targets and the pin-code mapping, built from the India Post
pin-code centroids (models/data/india_pincode_centroids.csv), plus the index definitions.

A monitoring target is a 0.25° grid cell (the IMD gridded-rainfall resolution) that holds
the centroids of the pin codes mapped to it. Its id reads as the cell centre, e.g.
`IN-12.875N-077.625E`; its name is the cell's most frequent district and state.
"""

from __future__ import annotations

import csv
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from models.domain.index_catalog import INDEX_DEFINITIONS
from models.settings import DATA_DIR

CELL_DEGREES = 0.25
PINCODE_FILE = DATA_DIR / "india_pincode_centroids.csv"


@dataclass(frozen=True, slots=True)
class PinCode:
    pin_code: str
    district: str
    state: str
    latitude: float
    longitude: float


@dataclass(frozen=True, slots=True)
class Target:
    id: str
    name: str
    latitude: float  # cell centre, degrees north
    longitude: float  # cell centre, degrees east
    district: str
    state: str
    pin_codes: tuple[str, ...]


def read_pin_codes(path: Path = PINCODE_FILE) -> list[PinCode]:
    """Pin codes that have coordinates (rows with blank latitude/longitude are skipped)."""
    rows: list[PinCode] = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if not row["latitude"] or not row["longitude"]:
                continue
            rows.append(
                PinCode(
                    pin_code=row["pincode"].strip(),
                    district=row["district"].strip(),
                    state=row["state"].strip(),
                    latitude=float(row["latitude"]),
                    longitude=float(row["longitude"]),
                )
            )
    return rows


def cell_centre(latitude: float, longitude: float) -> tuple[float, float]:
    """Centre of the 0.25° cell holding the point (cells are [k·0.25, (k+1)·0.25))."""
    lat = (math.floor(latitude / CELL_DEGREES) + 0.5) * CELL_DEGREES
    lon = (math.floor(longitude / CELL_DEGREES) + 0.5) * CELL_DEGREES
    return lat, lon


def target_id(lat: float, lon: float) -> str:
    ns = "N" if lat >= 0 else "S"
    ew = "E" if lon >= 0 else "W"
    return f"IN-{abs(lat):06.3f}{ns}-{abs(lon):07.3f}{ew}"


def _title(name: str) -> str:
    return " ".join(part.capitalize() for part in name.replace("_", " ").split())


def build_targets(pin_codes: list[PinCode]) -> list[Target]:
    cells: dict[tuple[float, float], list[PinCode]] = defaultdict(list)
    for pc in pin_codes:
        cells[cell_centre(pc.latitude, pc.longitude)].append(pc)
    targets = []
    for (lat, lon), members in sorted(cells.items()):
        (district, state), _ = Counter((m.district, m.state) for m in members).most_common(1)[0]
        name = f"{_title(district)}, {_title(state)} ({lat:.3f}°N {lon:.3f}°E)"
        targets.append(
            Target(
                id=target_id(lat, lon),
                name=name,
                latitude=lat,
                longitude=lon,
                district=district,
                state=state,
                pin_codes=tuple(sorted(m.pin_code for m in members)),
            )
        )
    return targets


async def load_reference_data() -> dict[str, int]:
    """Write index definitions, targets and pin codes to the database (idempotent)."""
    from models.db.core import write_transaction
    from models.db.tables import IndexDefinition, MonitoringTarget, PincodeMapping

    for spec in INDEX_DEFINITIONS:
        values = dict(
            code=spec.code,
            name=spec.name,
            description=spec.description,
            unit=spec.unit,
            type=spec.type,
            risk_type_id=spec.risk_type_id,
            risk_type=spec.risk_type,
            aggregation=spec.aggregation,
            direction=spec.direction,
            data_source_id=spec.data_source_id,
            data_source_description=spec.data_source_description,
            data_set_id=spec.data_set_id,
            data_set=spec.data_set,
            trigger_label=spec.trigger_label,
            hours_from=spec.hours[0] if spec.hours else None,
            hours_to=spec.hours[1] if spec.hours else None,
        )
        if await IndexDefinition.exists().where(IndexDefinition.id == spec.id):
            await IndexDefinition.update(values).where(IndexDefinition.id == spec.id)
        else:
            await IndexDefinition.insert(IndexDefinition(id=spec.id, **values))

    pin_codes = read_pin_codes()
    if await PincodeMapping.count() == len(pin_codes):
        return {"index_definitions": len(INDEX_DEFINITIONS), "pin_codes": len(pin_codes), "loaded": 0}
    targets = build_targets(pin_codes)
    target_of = {pc: t.id for t in targets for pc in t.pin_codes}
    async with write_transaction():
        await PincodeMapping.delete(force=True)
        await MonitoringTarget.delete(force=True)
        for chunk in _chunks(targets, 500):
            await MonitoringTarget.insert(
                *[
                    MonitoringTarget(
                        id=t.id,
                        name=t.name,
                        latitude=t.latitude,
                        longitude=t.longitude,
                        district=t.district,
                        state=t.state,
                        pin_code_count=len(t.pin_codes),
                    )
                    for t in chunk
                ]
            )
        for chunk in _chunks(pin_codes, 1000):
            await PincodeMapping.insert(
                *[
                    PincodeMapping(
                        pin_code=pc.pin_code,
                        monitoring_target_id=target_of[pc.pin_code],
                        district=pc.district,
                        state=pc.state,
                        latitude=pc.latitude,
                        longitude=pc.longitude,
                    )
                    for pc in chunk
                ]
            )
    return {"index_definitions": len(INDEX_DEFINITIONS), "pin_codes": len(pin_codes), "loaded": len(targets)}


def _chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i : i + size]

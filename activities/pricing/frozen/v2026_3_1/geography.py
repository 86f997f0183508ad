"""District and state names → IMD district normals and IMD meteorological subdivision.

Name tables drive the resolution. They are data (``models/data/geography_aliases.json``,
read by :mod:`.climate_data` into :class:`NameTables`, covered by the data hash), written out
so that an actuary can audit them:

* ``state_aliases``: pin-code state names (2025) → the state keys of the district-normals
  file (2000s spellings; Telangana and Ladakh did not exist yet).
* ``district_aliases``: per state, pin-code district names that cannot be matched by
  spelling → the 2000s normals district. ``renamed`` means the same area under a new name;
  ``parent`` means a district carved out after the normals were published, mapped to the
  district it was carved from (the one holding most of its area).
* ``subdivision_by_state`` / ``subdivision_splits``: IMD subdivisions follow state borders
  except in split states, where the split is by district. The district lists of the split
  states follow IMD's grouping, which the district-normals file preserves (its districts are
  listed subdivision by subdivision, e.g. Konkan, Madhya Maharashtra, Marathwada, Vidarbha).

Resolution order for a (district, state, lat, lon) query, first hit wins; the kind is
reported in :class:`ClimateSite.match_kind`:

1. ``exact``: same spelling (case and surrounding blanks ignored) in the same state.
2. ``normalised``: equal after :func:`normalise_name` (punctuation, "&", parentheses,
   "DISTRICT", spaced initials), or equal with blanks removed ("BANAS KANTHA").
3. ``renamed`` / ``parent``: ``district_aliases``.
4. ``prefix``: one normalised name is a prefix of the other and the match is unique in the
   state (the normals file truncates names to 13 characters: "BANGALORE URB").
5. ``fuzzy``: ``difflib`` similarity ≥ 0.85, unique best match in the state.
6. ``nearest_district``: with coordinates, the matched district whose pin-code centroid is
   nearest (great-circle), within the state when the state is known, else anywhere.
7. ``state_mean``: without coordinates, the mean normal of the state's districts and the
   state's most common subdivision.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass
from statistics import median

import numpy as np

from .climate_data import ClimateData, NameTables

MATCH_KINDS = (
    "exact",
    "normalised",
    "renamed",
    "parent",
    "prefix",
    "fuzzy",
    "nearest_district",
    "state_mean",
)
FUZZY_CUTOFF = 0.85
_EARTH_RADIUS_KM = 6371.0088


def normalise_name(name: str | None) -> str:
    """Canonical spelling for matching: ASCII upper case, no punctuation or parentheses.

    "&" becomes "AND"; text in parentheses (closed or truncated) is dropped; the words
    DISTRICT/DIST and a leading THE are dropped; spaced initials are joined
    ("S.A.S Nagar" → "SAS NAGAR").
    """
    if not name:
        return ""
    s = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").upper()
    s = re.sub(r"\([^)]*\)", " ", s)
    s = re.sub(r"\(.*$", " ", s)
    s = s.replace("&", " AND ")
    s = re.sub(r"[^A-Z0-9]+", " ", s)
    tokens = [t for t in s.split() if t not in ("DISTRICT", "DIST", "DISTT")]
    if tokens and tokens[0] == "THE":
        tokens = tokens[1:]
    out: list[str] = []
    prev_single = False
    for t in tokens:  # join runs of single letters: S A S -> SAS
        single = len(t) == 1 and t.isalpha()
        if single and prev_single:
            out[-1] += t
        else:
            out.append(t)
        prev_single = single and (prev_single or len(out[-1]) == 1) if single else False
    return " ".join(out)


def normalise_state(state: str | None) -> str:
    """Normalised state name (same rules as :func:`normalise_name`)."""
    return normalise_name(state)


@dataclass(frozen=True, slots=True)
class ClimateSite:
    """Where a target's climate comes from.

    ``normals_mm``: the 12 monthly rainfall normals (mm, January first) used as the level of
    the monthly model. ``distance_km`` is the great-circle distance from the query point to
    the centroid of the district whose normals are used (None without coordinates or for a
    state mean).
    """

    query_district: str | None
    query_state: str | None
    latitude: float | None
    longitude: float | None
    normals_state: str  # state key of the normals file
    normals_district: str | None  # normals district name (source spelling); None = state mean
    subdivision: str
    match_kind: str  # one of MATCH_KINDS
    normals_mm: tuple[float, ...]
    distance_km: float | None


@dataclass(frozen=True, eq=False)
class _District:
    state_key: str
    name: str  # source spelling
    key: str  # normalised
    normals: tuple[float, ...]
    subdivision: str


@dataclass(eq=False)
class Gazetteer:
    """Lookup tables built once per :class:`ClimateData` (see :func:`gazetteer`)."""

    names: NameTables
    districts: dict[str, dict[str, _District]]  # state key → normalised name → district
    centroids: dict[tuple[str, str], tuple[float, float]]  # (state key, key) → (lat, lon)

    def state_keys(self, state: str | None) -> tuple[str, ...]:
        s = normalise_state(state)
        if not s:
            return ()
        if s in self.names.state_aliases:
            return self.names.state_aliases[s]
        return (s,) if s in self.districts else ()


def subdivision_of(names: NameTables, state_key: str, district_key: str) -> str:
    """IMD subdivision of a normals-file district (normalised state key and name)."""
    if state_key in names.subdivision_splits:
        for sub, districts in names.subdivision_splits[state_key].items():
            if district_key in districts:
                return sub
        raise KeyError(f"district {district_key!r} of split state {state_key!r} has no subdivision")
    try:
        return names.subdivision_by_state[state_key]
    except KeyError:
        raise KeyError(f"state {state_key!r} has no subdivision") from None


def _match_in_state(gaz: Gazetteer, state_key: str, name: str) -> tuple[_District, str] | None:
    table = gaz.districts.get(state_key, {})
    if not table or not name:
        return None
    raw = name.strip().upper()
    for d in table.values():
        if d.name.upper() == raw:
            return d, "exact"
    key = normalise_name(name)
    if key in table:
        return table[key], "normalised"
    compact = key.replace(" ", "")
    hits = [d for k, d in table.items() if k.replace(" ", "") == compact]
    if len(hits) == 1:
        return hits[0], "normalised"
    alias = gaz.names.district_aliases.get(state_key, {}).get(key)
    if alias is not None and alias[0] in table:
        return table[alias[0]], alias[1]
    if len(key) >= 5:
        hits = [d for k, d in table.items() if len(k) >= 5 and (k.startswith(key) or key.startswith(k))]
        if len(hits) == 1:
            return hits[0], "prefix"
    scored = sorted(
        ((difflib.SequenceMatcher(None, compact, k.replace(" ", "")).ratio(), k) for k in table),
        reverse=True,
    )
    if scored and scored[0][0] >= FUZZY_CUTOFF and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return table[scored[0][1]], "fuzzy"
    return None


def _match(gaz: Gazetteer, district: str | None, state: str | None) -> tuple[_District, str] | None:
    for sk in gaz.state_keys(state):
        hit = _match_in_state(gaz, sk, district or "")
        if hit is not None:
            return hit
    return None


def haversine_km(lat1, lon1, lat2, lon2):
    """Great-circle distance in km (arrays broadcast); inputs in decimal degrees."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(np.asarray(lon2) - np.asarray(lon1))
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * _EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


_GAZETTEERS: dict[str, Gazetteer] = {}


def gazetteer(climate: ClimateData) -> Gazetteer:
    """Build (once per data hash) the district tables and district centroids.

    A normals district's centroid is the median latitude/longitude of the pin codes that
    resolve to it by name (kinds exact … fuzzy, including carved-out ``parent`` districts,
    whose pin codes lie inside the 2000s district).
    """
    cached = _GAZETTEERS.get(climate.data_hash)
    if cached is not None:
        return cached
    districts: dict[str, dict[str, _District]] = {}
    for dn in climate.district_normals:
        sk = normalise_state(dn.state)
        key = normalise_name(dn.district)
        districts.setdefault(sk, {})[key] = _District(
            sk, dn.district, key, tuple(float(v) for v in dn.normals_mm), subdivision_of(climate.names, sk, key)
        )
    gaz = Gazetteer(names=climate.names, districts=districts, centroids={})
    pts: dict[tuple[str, str], list[tuple[float, float]]] = {}
    memo: dict[tuple[str, str], tuple[_District, str] | None] = {}
    for pc in climate.pincodes:
        if pc.latitude is None or pc.longitude is None or not pc.district:
            continue
        k = (pc.district, pc.state)
        if k not in memo:
            memo[k] = _match(gaz, pc.district, pc.state)
        hit = memo[k]
        if hit is not None:
            pts.setdefault((hit[0].state_key, hit[0].key), []).append((pc.latitude, pc.longitude))
    gaz.centroids = {k: (median(p[0] for p in v), median(p[1] for p in v)) for k, v in pts.items()}
    _GAZETTEERS[climate.data_hash] = gaz
    return gaz


def _site(q_d, q_s, lat, lon, d: _District, kind: str, dist: float | None) -> ClimateSite:
    return ClimateSite(q_d, q_s, lat, lon, d.state_key, d.name, d.subdivision, kind, d.normals, dist)


def climate_site(
    climate: ClimateData,
    district: str | None,
    state: str | None,
    lat: float | None = None,
    lon: float | None = None,
) -> ClimateSite:
    """Resolve a place to district normals (mm) and an IMD subdivision.

    ``lat``/``lon`` in decimal degrees (optional; needed for the nearest-district fallback).
    Raises LookupError only when neither the district, the state nor coordinates resolve.
    """
    gaz = gazetteer(climate)
    hit = _match(gaz, district, state)
    has_xy = lat is not None and lon is not None and not (math.isnan(lat) or math.isnan(lon))
    if hit is not None:
        d, kind = hit
        c = gaz.centroids.get((d.state_key, d.key))
        dist = float(haversine_km(lat, lon, c[0], c[1])) if (has_xy and c) else None
        return _site(district, state, lat, lon, d, kind, dist)
    states = gaz.state_keys(state)
    if has_xy:
        cands = [k for k in gaz.centroids if not states or k[0] in states] or list(gaz.centroids)
        la = np.array([gaz.centroids[k][0] for k in cands])
        lo = np.array([gaz.centroids[k][1] for k in cands])
        dist = haversine_km(lat, lon, la, lo)
        i = int(np.argmin(dist))
        d = gaz.districts[cands[i][0]][cands[i][1]]
        return _site(district, state, lat, lon, d, "nearest_district", float(dist[i]))
    if states:
        members = [d for sk in states for d in gaz.districts.get(sk, {}).values()]
        normals = tuple(float(np.mean([d.normals[m] for d in members])) for m in range(12))
        subs = [d.subdivision for d in members]
        sub = max(sorted(set(subs)), key=subs.count)
        return ClimateSite(district, state, lat, lon, states[0], None, sub, "state_mean", normals, None)
    raise LookupError(f"cannot resolve district={district!r} state={state!r} without coordinates")


def pincode_site(climate: ClimateData, pincode: str) -> ClimateSite:
    """:func:`climate_site` for a 6-digit pin code of the centroids file (KeyError if unknown)."""
    pc = _pincode_index(climate).get(str(pincode).strip())
    if pc is None:
        raise KeyError(f"unknown pin code {pincode!r}")
    return climate_site(climate, pc.district or None, pc.state or None, pc.latitude, pc.longitude)


_PINCODES: dict[str, dict] = {}


def _pincode_index(climate: ClimateData) -> dict:
    idx = _PINCODES.get(climate.data_hash)
    if idx is None:
        idx = _PINCODES[climate.data_hash] = {p.pincode: p for p in climate.pincodes}
    return idx

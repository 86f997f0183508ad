"""District → normals and IMD subdivision: every pin code resolves."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from activities.pricing import climate_site, normalise_name, pincode_site
from activities.pricing.geography import MATCH_KINDS, gazetteer


def test_every_pincode_with_a_district_resolves(climate):
    kinds = Counter()
    memo = {}
    for pc in climate.pincodes:
        if not pc.district:
            continue
        key = (pc.district, pc.state, pc.latitude, pc.longitude)
        if key not in memo:
            memo[key] = climate_site(climate, pc.district, pc.state, pc.latitude, pc.longitude)
        s = memo[key]
        assert s.match_kind in MATCH_KINDS
        assert s.subdivision in climate.names.subdivisions
        assert s.subdivision in climate.subdivisions
        assert len(s.normals_mm) == 12 and all(math.isfinite(v) and v >= 0 for v in s.normals_mm)
        kinds[s.match_kind] += 1
    total = sum(kinds.values())
    assert total > 19_000
    by_name = total - kinds["nearest_district"] - kinds["state_mean"]
    assert by_name / total > 0.99, kinds


def test_pincodes_without_district_resolve_by_coordinates(climate):
    n = 0
    for pc in climate.pincodes:
        if not pc.district and pc.latitude is not None:
            s = pincode_site(climate, pc.pincode)
            assert s.match_kind == "nearest_district"
            assert s.distance_km < 150
            n += 1
    assert n > 50


def test_every_normals_district_has_a_subdivision_and_every_subdivision_is_used(climate):
    gaz = gazetteer(climate)
    used = {d.subdivision for t in gaz.districts.values() for d in t.values()}
    assert used == set(climate.names.subdivisions) == set(climate.subdivisions)
    assert sum(len(t) for t in gaz.districts.values()) == len(climate.district_normals)


@pytest.mark.parametrize(
    "district, state, sub",
    [
        ("UDUPI", "KARNATAKA", "COASTAL KARNATAKA"),
        ("BELAGAVI", "KARNATAKA", "NORTH INTERIOR KARNATAKA"),
        ("MYSURU", "KARNATAKA", "SOUTH INTERIOR KARNATAKA"),
        ("PALGHAR", "MAHARASHTRA", "KONKAN & GOA"),
        ("PUNE", "MAHARASHTRA", "MADHYA MAHARASHTRA"),
        ("LATUR", "MAHARASHTRA", "MATATHWADA"),
        ("NAGPUR", "MAHARASHTRA", "VIDARBHA"),
        ("HYDERABAD", "TELANGANA", "TELANGANA"),
        ("Tirupati", "ANDHRA PRADESH", "RAYALSEEMA"),
        ("NTR", "ANDHRA PRADESH", "COASTAL ANDHRA PRADESH"),
        ("JAISALMER", "RAJASTHAN", "WEST RAJASTHAN"),
        ("JAIPUR", "RAJASTHAN", "EAST RAJASTHAN"),
        ("INDORE", "MADHYA PRADESH", "WEST MADHYA PRADESH"),
        ("JABALPUR", "MADHYA PRADESH", "EAST MADHYA PRADESH"),
        ("MEERUT", "UTTAR PRADESH", "WEST UTTAR PRADESH"),
        ("PRAYAGRAJ", "UTTAR PRADESH", "EAST UTTAR PRADESH"),
        ("DARJEELING", "WEST BENGAL", "SUB HIMALAYAN WEST BENGAL & SIKKIM"),
        ("KOLKATA", "WEST BENGAL", "GANGETIC WEST BENGAL"),
        ("KACHCHH", "GUJARAT", "SAURASHTRA & KUTCH"),
        ("VADODARA", "GUJARAT", "GUJARAT REGION"),
        ("MAHE", "PUDUCHERRY", "KERALA"),
        ("SHILLONG", "MEGHALAYA", "ASSAM & MEGHALAYA"),
        ("LEH LADAKH", "LADAKH", "JAMMU & KASHMIR"),
        ("DIU", "THE DADRA AND NAGAR HAVELI AND DAMAN AND DIU", "SAURASHTRA & KUTCH"),
    ],
)
def test_split_states_follow_imd_district_lists(climate, district, state, sub):
    s = climate_site(climate, district, state, None, None)
    assert s.subdivision == sub


def test_fallbacks(climate):
    mumbai = climate_site(climate, "MUMBAI", "MAHARASHTRA")
    # unknown district with coordinates: nearest matched district of the state
    near = climate_site(climate, "NO SUCH PLACE", "MAHARASHTRA", 18.94, 72.84)
    assert near.match_kind == "nearest_district"
    assert near.normals_district in ("MUMBAI CITY", "MUMBAI SUB")
    # unknown district without coordinates: state mean, most common subdivision of the state
    mean = climate_site(climate, "NO SUCH PLACE", "MAHARASHTRA")
    assert mean.match_kind == "state_mean" and mean.normals_district is None
    assert mean.subdivision in ("MADHYA MAHARASHTRA", "VIDARBHA")
    assert mean.normals_mm != mumbai.normals_mm
    # nothing to go on
    with pytest.raises(LookupError):
        climate_site(climate, "NO SUCH PLACE", "NO SUCH STATE")


@pytest.mark.parametrize(
    "raw, norm",
    [
        ("S.A.S Nagar", "SAS NAGAR"),
        ("SAS NAGAR(MGA)", "SAS NAGAR"),
        ("N & M ANDAMAN", "N AND M ANDAMAN"),
        ("KULGAM/(ANT)", "KULGAM"),
        ("TAWANG(W KAME", "TAWANG"),
        ("THE NILGIRIS", "NILGIRIS"),
        ("Lakshadweep District", "LAKSHADWEEP"),
        ("  Janjgir-Champa ", "JANJGIR CHAMPA"),
        ("Y.S.R.", "YSR"),
    ],
)
def test_normalise_name(raw, norm):
    assert normalise_name(raw) == norm


def test_match_kinds(climate):
    assert climate_site(climate, "NEW DELHI", "DELHI").match_kind == "exact"
    assert climate_site(climate, "new delhi", "Delhi").match_kind == "exact"
    assert climate_site(climate, "BANAS KANTHA", "GUJARAT").match_kind == "normalised"
    assert climate_site(climate, "BENGALURU URBAN", "KARNATAKA").match_kind == "renamed"
    assert climate_site(climate, "PALGHAR", "MAHARASHTRA").match_kind == "parent"
    assert climate_site(climate, "THIRUVANANTHAPURAM", "KERALA").match_kind == "prefix"
    assert climate_site(climate, "HAZARIBAGH", "JHARKHAND").match_kind == "prefix"
    s = climate_site(climate, "MUMBAI", "MAHARASHTRA", 18.94, 72.84)
    assert np.isclose(s.distance_km, s.distance_km) and s.distance_km < 20


def test_the_name_tables_are_calibration_data_covered_by_the_data_hash(tmp_path):
    """The alias tables change which series prices a target: editing them must change the
    data hash stored with every price."""
    import shutil

    from activities.pricing.climate_data import DATA_FILES, NAME_TABLES_FILE, data_hash
    from models.settings import DATA_DIR

    for name in DATA_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA_DIR / name, tmp_path / name)
    before = data_hash(tmp_path)
    assert before == data_hash(DATA_DIR)
    tables = tmp_path / NAME_TABLES_FILE
    tables.write_text(tables.read_text().replace('"ODISHA"', '"ODISA"', 1))
    assert data_hash(tmp_path) != before

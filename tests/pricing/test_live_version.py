"""The live model version is a new one (issue 26): never a frozen version's name, and the
names the API accepts for a rerun (`NewPricingRun.modelVersion`) are the engine's own."""

from __future__ import annotations

from activities.pricing import MODEL_VERSION
from activities.pricing.frozen import FROZEN, engine_for
from models.domain.model_versions import KEPT_MODEL_VERSIONS, LIVE_MODEL_VERSION


def test_the_live_version_is_not_a_frozen_one():
    assert MODEL_VERSION == "pricing-2026.4.0"
    assert MODEL_VERSION not in FROZEN
    assert engine_for(MODEL_VERSION).__name__ == "activities.pricing"


def test_the_kept_versions_the_api_accepts_are_the_engines():
    assert LIVE_MODEL_VERSION == MODEL_VERSION
    assert set(KEPT_MODEL_VERSIONS) == {MODEL_VERSION, *FROZEN} and len(KEPT_MODEL_VERSIONS) == len(FROZEN) + 1
    for version in KEPT_MODEL_VERSIONS:
        assert engine_for(version).MODEL_VERSION == version

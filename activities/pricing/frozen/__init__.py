"""Frozen pricing models: every model version that priced a run is kept, unchanged, so that
a run reproduces bit for bit under its own version whatever the live engine
(`activities.pricing`) has become (issue 26; docs/pricing-model.md, "Model versions").

`v2026_3_1/` is the engine of `pricing-2026.3.1` as it was when 2026.4 began: a copy of
`activities/pricing` at that commit, never edited (tests/pricing/test_model_versions.py
holds its files' hashes and reprices golden covers with it). It reads the same reference
files, which are never edited either (new data comes in new files), and shares
`models.domain`'s payout rule with the live engine. `engine_for(version)` answers the module
that prices a given version.
"""

from __future__ import annotations

import importlib
from types import ModuleType

FROZEN = {"pricing-2026.3.1": "activities.pricing.frozen.v2026_3_1"}


def engine_for(model_version: str) -> ModuleType:
    """The pricing package of `model_version` (the live one for the current version)."""
    from activities.pricing.version import MODEL_VERSION

    if model_version == MODEL_VERSION:
        return importlib.import_module("activities.pricing")
    if model_version not in FROZEN:
        raise ValueError(f"model version {model_version!r} is not kept (kept: {', '.join([MODEL_VERSION, *FROZEN])})")
    return importlib.import_module(FROZEN[model_version])

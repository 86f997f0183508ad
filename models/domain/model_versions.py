"""The pricing model versions the service keeps.

Every version that priced a run keeps its engine (activities/pricing/frozen: a run reproduces
bit for bit under its own version), so an actuary's rerun may ask for any of them
(`NewPricingRun.modelVersion`). The API checks the name here, without the engine;
tests/pricing/test_model_versions.py holds these names to the engine's own (its live
`MODEL_VERSION` and its frozen versions)."""

LIVE_MODEL_VERSION = "pricing-2026.4.0"
KEPT_MODEL_VERSIONS = (LIVE_MODEL_VERSION, "pricing-2026.3.1")

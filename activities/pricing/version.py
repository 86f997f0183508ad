"""Model version: bump on any change that can move a price (formulae, tables, defaults).

Every version that priced a run is kept (activities/pricing/frozen: its engine, never
edited), so a run reproduces under its own version; the live one must never be a frozen one
(tests/pricing/test_model_versions.py)."""

# 4.0: trends that stay in the record (bounded horizon, held to the recent climate), burn
# views that do not share the projection and hold a cover, a band with every driver.
MODEL_VERSION = "pricing-2026.4.0"

"""Model version: bump on any change that can move a price (formulae, tables, defaults)."""

MODEL_VERSION = "pricing-2026.3.1"  # 3.1: coarser quantile tables in bootstrap replicates

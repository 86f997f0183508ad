"""What a lifecycle write reports back to its workflow."""

from __future__ import annotations

# What a lifecycle write reports: the stores return it too, so it is defined in the domain.
from models.domain.writes import TransitionOutcome as TransitionOutcome  # noqa: F401 - re-exported

# Error types the lifecycle workflows raise from their updates (the API maps them: 409, 503).
INVALID_TRANSITION = "InvalidTransition"
WRITE_FAILED = "WriteFailed"
# A bind that does not fit a capacity limit (409 capacity-exceeded); its one detail is the
# CapacityRefusal as a dict (models/domain/capacity.py).
CAPACITY_EXCEEDED = "CapacityExceeded"

"""A line item's premium (rounded once) split to its covers in whole paise that add up to it
(models.domain.money.allocate_minor): the quote document showed each cover's part rounded on
its own, and its premium column did not add up to the total by a paisa or two."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from models.domain.money import allocate_minor


def test_parts_that_each_round_up_still_add_up():
    # 0.005 + 0.005 each round to 0.01 (half even: 0.00/0.01); the line item's 0.01 is one paisa
    assert allocate_minor(1, [Decimal("0.005"), Decimal("0.005")]) == [1, 0]
    assert allocate_minor(3_813_913, [Decimal("19069.565"), Decimal("19069.565")]) == [1_906_957, 1_906_956]
    assert allocate_minor(100, [Decimal(0), Decimal(0)]) == [50, 50]


@given(st.integers(0, 10**9), st.lists(st.decimals(0, 10**6, places=4, allow_nan=False), min_size=1, max_size=30))
def test_the_parts_add_up_and_follow_the_weights(total, weights):
    parts = allocate_minor(total, weights)
    assert sum(parts) == total and len(parts) == len(weights) and min(parts) >= 0
    whole = sum(weights)
    if whole > 0:
        for part, w in zip(parts, weights):
            assert abs(Decimal(part) - Decimal(total) * w / whole) < 1

"""Page and size query parameters, and the two page envelopes of the spec."""

from __future__ import annotations

import math
from typing import Annotated, TypeVar

from litestar.params import QueryParameter

from api.problems import InvalidInput
from models.wire.common import Page
from models.wire.internal import Pageable, RichPage, SortInfo

T = TypeVar("T")

PageParam = Annotated[int, QueryParameter(ge=0, le=10_000_000, description="Zero-based page number")]


def check_size(size: int, maximum: int) -> None:
    if size < 1 or size > maximum:
        raise InvalidInput.of_field("size", f"must be between 1 and {maximum}")


def page_of(items: list[T], total: int, page: int, size: int) -> Page[T]:
    return Page(
        content=items,
        total_elements=total,
        total_pages=math.ceil(total / size) if total else 0,
        size=size,
        number=page,
    )


def rich_page_of(items: list[T], total: int, page: int, size: int, sorted_: bool = True) -> RichPage[T]:
    sort = SortInfo(unsorted=not sorted_, sorted=sorted_, empty=not sorted_)
    total_pages = math.ceil(total / size) if total else 0
    return RichPage(
        content=items,
        pageable=Pageable(sort=sort, page_number=page, page_size=size, offset=page * size, paged=True, unpaged=False),
        total_pages=total_pages,
        total_elements=total,
        last=page >= total_pages - 1,
        size=size,
        number=page,
        sort=sort,
        number_of_elements=len(items),
        first=page == 0,
        empty=not items,
    )

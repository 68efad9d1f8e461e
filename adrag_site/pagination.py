"""The API's one pagination: `?page=` and `?page_size=` (at most 200), API_PAGE_SIZE by default."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class PageSizePagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200

"""The API's one pagination: `?page=` and `?page_size=` (at most 200), API_PAGE_SIZE by default.

A page that is not a positive whole number (`?page=abc`) is a 400 `invalid_request`; a page past
the last is DRF's 404."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination

from adrag_site.errors import ServiceError


class PageSizePagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200

    def paginate_queryset(self, queryset, request, view=None):
        page = request.query_params.get(self.page_query_param)
        if page is not None and page not in self.last_page_strings:
            if not page.isdigit() or int(page) < 1:
                raise ServiceError(
                    400, "invalid_request", f"page must be a whole number from 1, not {page!r}."
                )
        return super().paginate_queryset(queryset, request, view)

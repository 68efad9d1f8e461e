"""What a chunk is, and how its label joins the headings above it.

Chunking writes these (knowledge/ingest/), the pipeline reads them when it builds evidence
blocks, and answering reads them to tell a table row from a list from prose.
"""

from __future__ import annotations

# Joins a block's file name and the headings above it in its label: "policy.md › Leave".
SECTION_SEPARATOR = " › "
# What a passage is (a chunk's kind): a run of prose, part of a list, one table row with its
# headers, or a run of table rows.
KIND_PROSE = "prose"
KIND_LIST = "list"
KIND_ROW = "row"
KIND_TABLE = "table"

"""Tables kept as data: every table ingestion recognises, typed, beside its row chunks.

- `cells.py` reads a cell: a number (with its currency or unit), a date, a length of time, or
  text; footnote marks and "n/a" dashes are not values.
- `build.py` turns a document's row chunks into tables: columns with an inferred type, each
  row's raw and normalised cells and its chunk, and what normalisation dropped (a repeated
  header row, a totals row).

`knowledge/index.py` writes them with the chunks, in the same transaction, and deletes them
with the document: permissions, deletion, re-indexing and backups treat them like chunks.
"""

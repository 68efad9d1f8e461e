"""What the team-tables sets' builders share (`bench/team_tables/*/build.py`): a workbook of
sheets, a slide with one table, a Word document with one table, and a set's files written out,
each byte-for-byte the same on every run."""

from __future__ import annotations

import datetime
import io
from pathlib import Path

from team_docs.build import _fixed_zip_times


def dated_rows(rows: list[tuple]) -> list[list]:
    """Return a sheet's rows with each (year, month, day) tuple as a date."""
    return [[datetime.date(*v) if isinstance(v, tuple) else v for v in row] for row in rows]


def workbook(sheets: dict[str, list[tuple]], **properties) -> bytes:
    """Return an xlsx of the sheets, in order (rows as written: numbers, dates, text), with
    the document properties given (creator, created, ...)."""
    from openpyxl import Workbook

    book = Workbook()
    for number, (title, rows) in enumerate(sheets.items()):
        sheet = book.active if number == 0 else book.create_sheet(title)
        sheet.title = title
        for row in rows:
            sheet.append(list(row))
    for name, value in properties.items():
        setattr(book.properties, name, value)
    raw = io.BytesIO()
    book.save(raw)
    return _fixed_zip_times(raw.getvalue())


def slide_table(title: str, rows: list[tuple], **properties) -> bytes:
    """Return a pptx of one titled slide holding the rows as a table, with the core
    properties given (author, ...)."""
    from pptx import Presentation
    from pptx.util import Inches

    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = title
    shape = slide.shapes.add_table(
        len(rows), len(rows[0]), Inches(0.5), Inches(1.5), Inches(9), Inches(3)
    )
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            shape.table.cell(r, c).text = str(value)
    for name, value in properties.items():
        setattr(presentation.core_properties, name, value)
    raw = io.BytesIO()
    presentation.save(raw)
    return _fixed_zip_times(raw.getvalue())


def word_table(heading: str, before: str, rows: list[tuple], after: str, **properties) -> bytes:
    """Return a docx of a heading, a paragraph, the rows as a table and a closing paragraph,
    with the core properties given (author, created, ...)."""
    import docx

    document = docx.Document()
    for name, value in properties.items():
        setattr(document.core_properties, name, value)
    document.add_heading(heading, level=1)
    document.add_paragraph(before)
    table = document.add_table(rows=len(rows), cols=len(rows[0]))
    for row, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph(after)
    raw = io.BytesIO()
    document.save(raw)
    return _fixed_zip_times(raw.getvalue())


def write_set(target: Path, files: dict[str, bytes]) -> list[Path]:
    """Write a set's files into `target` and return their paths, sorted."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        path = target / name
        path.write_bytes(data)
        written.append(path)
    return sorted(written)

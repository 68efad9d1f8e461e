"""Build the team-documents evaluation set into a folder.

    .venv/bin/python bench/team_docs/build.py OUTDIR

Copies the text sources (Markdown, HTML, CSV, plain text) from sources/ as they are, builds
each `docx_<name>.json` spec into `<name>.docx` with python-docx and each `pdf_<name>.json`
spec into `<name>.pdf` with the repository's `build_pdf`, and prints the files written.
Every output is byte-for-byte the same on every run.
"""

from __future__ import annotations

import datetime
import io
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "sources"
REPO_ROOT = Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".md", ".html", ".csv", ".txt"}
FIXED_TIME = datetime.datetime(2025, 4, 1, 9, 0, 0)
ZIP_TIME = (2025, 4, 1, 9, 0, 0)
FIXED_STAMP = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
_STAMP = re.compile(rb"(<dcterms:(?:created|modified)\b[^>]*>)[^<]*(</dcterms:)")


def build_docx(spec: dict) -> bytes:
    """Return a DOCX made of the spec's heading, paragraph, list and table blocks."""
    import docx

    doc = docx.Document()
    props = doc.core_properties
    props.author = props.last_modified_by = "Corvane Systems"
    props.title = spec.get("title", "")
    props.created = props.modified = props.last_printed = FIXED_TIME
    props.revision = 1
    for block in spec["blocks"]:
        kind = block["type"]
        if kind == "heading":
            doc.add_heading(block["text"], block["level"])
        elif kind == "paragraph":
            doc.add_paragraph(block["text"])
        elif kind in ("numbered", "bullets"):
            style = "List Number" if kind == "numbered" else "List Bullet"
            for item in block["items"]:
                doc.add_paragraph(item, style=style)
        elif kind == "table":
            rows = block["rows"]
            table = doc.add_table(rows=len(rows), cols=len(rows[0]))
            table.style = "Table Grid"
            for row, values in zip(table.rows, rows):
                for cell, value in zip(row.cells, values):
                    cell.text = value
            for cell in table.rows[0].cells:  # the header row in bold
                for run in cell.paragraphs[0].runs:
                    run.bold = True
        else:
            raise ValueError(f"unknown block type {kind!r}")
    raw = io.BytesIO()
    doc.save(raw)
    return _fixed_zip_times(raw.getvalue())


def _fixed_zip_times(data: bytes) -> bytes:
    """Rewrite a ZIP with every member's timestamp fixed, so the bytes never vary (and the
    document's own dates too: openpyxl stamps a workbook with the time it was saved)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            member = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            member.compress_type = zipfile.ZIP_DEFLATED
            member.external_attr = info.external_attr
            content = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                content = _STAMP.sub(rb"\g<1>" + FIXED_STAMP + rb"\g<2>", content)
            dst.writestr(member, content)
    return out.getvalue()


def build(target: Path) -> list[Path]:
    """Write every document of the set into `target` and return their paths, sorted."""
    sys.path.insert(0, str(REPO_ROOT))
    from tests.fixtures.make_files import build_pdf

    target.mkdir(parents=True, exist_ok=True)
    written = []
    for source in sorted(SOURCES.iterdir()):
        if source.suffix in TEXT_SUFFIXES:
            path = target / source.name
            shutil.copyfile(source, path)
        elif source.name.startswith("docx_") and source.suffix == ".json":
            spec = json.loads(source.read_text(encoding="utf-8"))
            path = target / spec["output"]
            path.write_bytes(build_docx(spec))
        elif source.name.startswith("pdf_") and source.suffix == ".json":
            spec = json.loads(source.read_text(encoding="utf-8"))
            path = target / spec["output"]
            path.write_bytes(build_pdf(spec["pages"]))
        else:
            continue
        written.append(path)
    return sorted(written)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build.py OUTDIR")
    for built in build(Path(sys.argv[1])):
        print(built)

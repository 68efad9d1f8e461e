"""Turn some of the team documents into scans: image-only PDFs, as a copier would make them.

    from scan import scan_documents
    scanned, renamed = scan_documents(files, target)

- the travel policy PDF is drawn from its own pages, at 200 dpi;
- the meeting notes (plain text) are set as typed pages;
- the offices CSV is set as a printed table, its columns aligned.

Each page is then made to look scanned: grey, turned by a third of a degree, a little blurred,
and stored as a JPEG at quality 75 inside the PDF. The files keep their stems, with a .pdf
suffix (`renamed` maps the old names to the new ones).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

PAGE = (1700, 2200)  # US letter at 200 dpi
MARGIN = 150
FONT_PX = 30  # 11 pt at 200 dpi
LINE_PX = 40
SCANNED = ("travel-policy.pdf", "leadership-meeting-notes.txt", "offices.csv")


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _font(size: int = FONT_PX):
    """DejaVu Sans where the machine has it (it draws ó and ł), else Pillow's own font."""
    from PIL import ImageFont

    if DEJAVU.exists():
        return ImageFont.truetype(str(DEJAVU), size)
    return ImageFont.load_default(size=size)


def _blank():
    from PIL import Image

    return Image.new("L", PAGE, 255)


def typed_pages(lines: list[str]):
    """Set lines of text on letter pages, as many as fit on each."""
    from PIL import ImageDraw

    font = _font()
    lines = [piece for line in lines for piece in _wrap(line, font, PAGE[0] - 2 * MARGIN)]
    per_page = (PAGE[1] - 2 * MARGIN) // LINE_PX
    pages = []
    for start in range(0, max(len(lines), 1), per_page):
        page = _blank()
        draw = ImageDraw.Draw(page)
        for index, line in enumerate(lines[start : start + per_page]):
            draw.text((MARGIN, MARGIN + index * LINE_PX), line, fill=0, font=font)
        pages.append(page)
    return pages


def _wrap(line: str, font, width: float) -> list[str]:
    """Break a line at spaces so that each piece fits the width, as a word processor would."""
    pieces: list[str] = []
    current = ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and font.getlength(candidate) > width:
            pieces.append(current)
            current = word
        else:
            current = candidate
    return [*pieces, current]


def table_pages(rows: list[list[str]]):
    """Set a table with aligned columns a letter apart (a printed spreadsheet), the type as
    large as fits the page's width, 11 pt at most."""
    from PIL import ImageDraw

    for size in range(FONT_PX, 12, -1):
        font = _font(size)
        widths = [
            max(font.getlength(row[column]) for row in rows if column < len(row)) + size
            for column in range(len(rows[0]))
        ]
        if sum(widths) <= PAGE[0] - 2 * MARGIN:
            break
    page = _blank()
    draw = ImageDraw.Draw(page)
    for index, row in enumerate(rows):
        x = MARGIN
        for column, cell in enumerate(row):
            draw.text((x, MARGIN + index * size * 1.6), cell, fill=0, font=font)
            x += widths[column]
        if index == 0:
            y = MARGIN + size * 1.6 - 6
            draw.line((MARGIN, y, PAGE[0] - MARGIN, y), fill=0, width=2)
    return [page]


def pdf_pages(path: Path):
    """Draw a PDF's pages at 200 dpi, as a scanner would."""
    import pypdfium2

    document = pypdfium2.PdfDocument(path.read_bytes())
    try:
        return [page.render(scale=200 / 72).to_pil().convert("L") for page in document]
    finally:
        document.close()


def looks_scanned(page):
    """Grey, turned a third of a degree, slightly blurred, JPEG at quality 75."""
    from PIL import Image, ImageFilter

    turned = page.rotate(0.35, resample=Image.BICUBIC, fillcolor=255)
    blurred = turned.filter(ImageFilter.GaussianBlur(0.6))
    buffer = io.BytesIO()
    blurred.save(buffer, format="JPEG", quality=75)
    return Image.open(io.BytesIO(buffer.getvalue()))


def image_pdf(pages) -> bytes:
    buffer = io.BytesIO()
    pages[0].save(buffer, format="PDF", save_all=True, append_images=pages[1:], resolution=200)
    return buffer.getvalue()


def source_text(path: Path) -> str:
    """The text a perfect reading of the scan would give."""
    if path.suffix == ".pdf":
        from pypdf import PdfReader

        return "\n".join(page.extract_text() or "" for page in PdfReader(path).pages)
    if path.suffix == ".csv":
        return "\n".join(" ".join(row) for row in csv.reader(io.StringIO(path.read_text())))
    return path.read_text()


def scan_documents(files: list[Path], target: Path) -> tuple[list[Path], dict[str, str]]:
    """Replace the SCANNED files by image-only PDFs in target; return the files and renames."""
    target.mkdir(parents=True, exist_ok=True)
    out: list[Path] = []
    renamed: dict[str, str] = {}
    for path in files:
        if path.name not in SCANNED:
            out.append(path)
            continue
        if path.suffix == ".pdf":
            pages = pdf_pages(path)
        elif path.suffix == ".csv":
            pages = table_pages(list(csv.reader(io.StringIO(path.read_text()))))
        else:
            pages = typed_pages(path.read_text().splitlines())
        scanned = target / f"{path.stem}.pdf"
        scanned.write_bytes(image_pdf([looks_scanned(page) for page in pages]))
        renamed[path.name] = scanned.name
        out.append(scanned)
    return out, renamed


def word_recall(truth: str, read: str) -> float:
    """The share of the true words (with repeats) that the reading holds."""
    import re
    from collections import Counter

    def words(text: str) -> Counter:
        return Counter(re.findall(r"\w+", text.lower()))

    expected, found = words(truth), words(read)
    total = sum(expected.values())
    return sum(min(count, found[word]) for word, count in expected.items()) / total if total else 1

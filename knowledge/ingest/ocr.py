"""Read the text of scanned pages and images with OCR, each page under its own time budget.

The engine is RapidOCR (PP-OCRv6 models on onnxruntime). Its wheel carries the models, so
nothing is downloaded and `make run` stays the whole set-up. It runs only inside the extraction
sandbox (knowledge/ingest/sandbox.py), which gives it its own memory cap and announces each
page to the worker, so a long scan shows its progress and earns its time page by page.

A page that cannot be read (over its budget, an image too large, no text found) is reported
with its reason instead of failing the document: the other pages are still worth indexing.
"""

from __future__ import annotations

import io
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from statistics import median

# Pages are rendered at this resolution; the engine works on at most 2,000 pixels a side.
RENDER_DPI = 200
MAX_RENDER_SIDE = 2000
# A line box whose top lies more than this many line heights below the previous line's
# bottom starts a new paragraph.
PARAGRAPH_GAP = 0.9
# Recognised text scoring below this is dropped (RapidOCR's own default).
MIN_TEXT_SCORE = 0.5
# Pillow refuses images over this many pixels (a decompression bomb): 12,000 × 12,000.
MAX_IMAGE_PIXELS = 144_000_000

# Why a page could not be read; stored with the document, so never rename one.
OVER_BUDGET = "over_budget"
NO_TEXT_FOUND = "no_text_found"
UNREADABLE_IMAGE = "unreadable_image"
OVER_PAGE_LIMIT = "over_page_limit"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OcrOptions:
    """How OCR may run: its time budget per page and how many pages at most."""

    page_seconds: float = 30.0
    max_pages: int = 200
    # Called before each page is read, with its number and how many pages will be read.
    on_page: Callable[[int, int], None] | None = None

    def to_json(self) -> dict:
        return {
            "page_seconds": self.page_seconds,
            "max_pages": self.max_pages,
        }

    @classmethod
    def from_json(cls, data: dict) -> OcrOptions:
        return cls(
            page_seconds=float(data["page_seconds"]),
            max_pages=int(data["max_pages"]),
        )


@dataclass(frozen=True)
class PageText:
    """What OCR made of one page: its text, or why there is none."""

    page: int
    text: str = ""
    problem: str = ""
    seconds: float = 0.0
    # Where each line was read: (left, top, right, bottom) as fractions of the page, and its
    # text, so a viewer can mark a cited passage on the scan.
    boxes: tuple[tuple[float, float, float, float, str], ...] = ()


class _PageTimeout(BaseException):
    """A page's budget ran out. A BaseException: the engine wraps the Exceptions raised
    inside its model calls (where the alarm usually lands) in its own error."""


# The engine's threads: the sandbox's CPU cap counts every thread's time.
ENGINE_THREADS = 2


@dataclass(frozen=True)
class Box:
    """A line of text the engine found: where it lies, and the x-spans of its words."""

    top: float
    bottom: float
    left: float
    right: float
    text: str
    words: tuple[tuple[float, float], ...] = ()

    @property
    def spans(self) -> tuple[tuple[float, float], ...]:
        return self.words or ((self.left, self.right),)


_ENGINE = None


def _engine():
    """Return the process's OCR engine, loaded once (about a second)."""
    global _ENGINE
    if _ENGINE is None:
        from rapidocr import RapidOCR

        # The models ship in the wheel; the angle classifier is skipped (scans are upright)
        # and the engine's info lines stay out of the worker's log.
        _ENGINE = RapidOCR(
            params={
                "Global.use_cls": False,
                "Global.log_level": "warning",
                "EngineConfig.onnxruntime.intra_op_num_threads": ENGINE_THREADS,
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            }
        )
        logging.getLogger("RapidOCR").setLevel(logging.WARNING)
    return _ENGINE


def read_pages(
    images: Iterator[tuple[int, Callable[[], object]]], count: int, options: OcrOptions
) -> list[PageText]:
    """OCR pages given as (page number, a function returning its PIL image).

    Each page runs under `options.page_seconds` of wall-clock time; pages beyond
    `options.max_pages` are not read and say so.
    """
    results: list[PageText] = []
    to_read = min(count, options.max_pages)
    if to_read:
        _widen_limits()
        _engine()  # loaded once, outside any page's budget
    for index, (number, load) in enumerate(images):
        if index >= options.max_pages:
            results.append(PageText(page=number, problem=OVER_PAGE_LIMIT))
            continue
        if options.on_page:
            options.on_page(index + 1, to_read)
        results.append(_read_one(number, load, options.page_seconds))
    return results


def _widen_limits() -> None:
    """Raise this process's soft memory and CPU caps to its hard caps, for the engine.

    The sandbox sets a soft cap for parsing and a higher hard cap for OCR: text-layer
    extraction stays under the first, and only a file that needs OCR may use the second.
    """
    import resource

    for limit in (resource.RLIMIT_AS, resource.RLIMIT_CPU):
        soft, hard = resource.getrlimit(limit)
        # The CPU soft cap stays a second under the hard one, so that SIGXCPU (reported as
        # over time) comes before SIGKILL.
        wanted = (
            hard - 1 if limit == resource.RLIMIT_CPU and hard != resource.RLIM_INFINITY else hard
        )
        if soft != resource.RLIM_INFINITY and (wanted == resource.RLIM_INFINITY or wanted > soft):
            resource.setrlimit(limit, (wanted, hard))


def _read_one(number: int, load: Callable[[], object], budget: float) -> PageText:
    started = time.monotonic()

    def over_budget(signum, frame):  # noqa: ARG001 - the signal handler's signature
        raise _PageTimeout()

    # The engine returns to Python between its model calls, where the alarm is raised. Only
    # the main thread may take signals: elsewhere (never in the sandbox) a page runs unbudgeted.
    timed = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGALRM, over_budget) if timed else None
    try:
        try:
            if timed:
                # Then every half second, should a library swallow the first alarm.
                signal.setitimer(signal.ITIMER_REAL, max(budget, 0.001), 0.5)
            try:
                text, boxes = image_read(load())
            finally:
                if timed:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _PageTimeout:
            return PageText(page=number, problem=OVER_BUDGET, seconds=time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - Pillow, PDFium and the engine raise many types
            # A library may turn the alarm into an error of its own: past the budget, an error
            # is the budget's.
            if _timed_out(exc) or time.monotonic() - started >= budget:
                return PageText(
                    page=number, problem=OVER_BUDGET, seconds=time.monotonic() - started
                )
            if isinstance(exc, MemoryError):
                raise
            logger.info("page %s could not be read: %r", number, exc)
            return PageText(page=number, problem=UNREADABLE_IMAGE)
    finally:
        if timed:
            signal.signal(signal.SIGALRM, previous)
    seconds = time.monotonic() - started
    if not text.strip():
        return PageText(page=number, problem=NO_TEXT_FOUND, seconds=seconds)
    return PageText(page=number, text=text, seconds=seconds, boxes=boxes)


def _timed_out(exc: BaseException) -> bool:
    """Whether an error was raised because the page's alarm went off inside it."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, _PageTimeout):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def image_text(image) -> str:
    """Return the text OCR reads on a PIL image: lines in reading order, paragraphs apart."""
    return image_read(image)[0]


def image_read(image) -> tuple[str, tuple]:
    """Return the text OCR reads on a PIL image and where it read each line (PageText.boxes)."""
    import numpy as np

    # Word boxes too: a table's columns show in the gaps between words, even where the engine
    # read a whole row of cells as one line.
    result = _engine()(np.asarray(image.convert("RGB")), return_word_box=True)
    if result.boxes is None or not result.txts:
        return "", ()
    words = result.word_results if len(result.word_results) == len(result.txts) else None
    boxes = []
    for index, (box, text, score) in enumerate(
        zip(result.boxes, result.txts, result.scores, strict=True)
    ):
        if score < MIN_TEXT_SCORE or not text.strip():
            continue
        spans = [
            (float(min(p[0] for p in word_box)), float(max(p[0] for p in word_box)))
            for _word, _score, word_box in (words[index] if words else ())
            if word_box is not None
        ]
        boxes.append(
            Box(
                top=float(min(p[1] for p in box)),
                bottom=float(max(p[1] for p in box)),
                left=float(min(p[0] for p in box)),
                right=float(max(p[0] for p in box)),
                text=text,
                words=tuple(spans),
            )
        )
    width, height = image.size
    placed = tuple(
        (
            round(box.left / width, 4),
            round(box.top / height, 4),
            round(box.right / width, 4),
            round(box.bottom / height, 4),
            box.text,
        )
        for box in boxes
    )
    return layout_text(boxes), placed


def layout_text(boxes: list[Box]) -> str:
    """Join OCR boxes into lines, paragraphs and tables.

    Boxes whose vertical spans overlap by half the smaller height sit on one line, joined
    left to right; a gap under a line wider than `PARAGRAPH_GAP` line heights starts a
    paragraph, so headings, list items and prose come apart as they do in a text layer.
    Three lines or more in a row, each of two boxes or more, whose words fall into two
    columns or more (gutters down the whole run) are a table: its lines come out as
    tab-separated cells, a paragraph of their own, which the plain-text structure reads as a
    table under its first line.
    """
    if not boxes:
        return ""
    lines: list[list[Box]] = []
    for box in sorted(boxes, key=lambda b: (b.top, b.left)):
        for line in lines:
            line_top = min(b.top for b in line)
            line_bottom = max(b.bottom for b in line)
            overlap = min(box.bottom, line_bottom) - max(box.top, line_top)
            if overlap >= 0.5 * min(box.bottom - box.top, line_bottom - line_top):
                line.append(box)
                break
        else:
            lines.append([box])
    lines.sort(key=lambda line: min(b.top for b in line))
    for line in lines:
        line.sort(key=lambda b: b.left)
    height = median(b.bottom - b.top for b in boxes) or 1.0
    tables = _table_runs(lines, height)
    out: list[str] = []
    previous_bottom: float | None = None
    previous_table: int | None = None
    for index, line in enumerate(lines):
        top = min(b.top for b in line)
        table = tables.get(index)
        gap = previous_bottom is not None and top - previous_bottom > PARAGRAPH_GAP * height
        starts = table is not None and table[0] != previous_table
        ends = previous_table is not None and table is None
        if out and out[-1] and (gap or starts or ends):
            out.append("")
        out.append(_table_line(line, table[1]) if table else " ".join(b.text.strip() for b in line))
        previous_bottom = max(b.bottom for b in line)
        previous_table = table[0] if table else None
    return "\n".join(out)


MIN_TABLE_LINES = 3
# A box wider than this share of the page is a line of prose, not a table cell.
MAX_CELL_WIDTH = 0.35
# A gutter between two columns is at least this many line heights wide (a space between two
# words is about a quarter of one).
MIN_GUTTER = 0.5


def _table_runs(lines: list[list[Box]], height: float) -> dict[int, tuple[int, list]]:
    """Map the index of each line in a table to (the table's first line, its columns)."""
    tables: dict[int, tuple[int, list]] = {}
    run: list[int] = []
    page_width = max(b.right for line in lines for b in line) - min(
        b.left for line in lines for b in line
    )
    for index in range(len(lines) + 1):
        line = lines[index] if index < len(lines) else None
        # A table line holds two boxes or more, none of them a column of prose (two columns
        # of text side by side look like a table of two cells otherwise).
        wide = (
            line is not None
            and len(line) >= 2
            and all(b.right - b.left <= MAX_CELL_WIDTH * page_width for b in line)
        )
        if (
            wide
            and run
            and min(b.top for b in line) - max(b.bottom for b in lines[run[-1]])
            <= PARAGRAPH_GAP * height
        ):
            run.append(index)
            continue
        if len(run) >= MIN_TABLE_LINES:
            columns = _columns([span for i in run for b in lines[i] for span in b.spans], height)
            if len(columns) >= 2 and all(
                len({_column_of(span, columns) for b in lines[i] for span in b.spans}) >= 2
                for i in run
            ):
                tables.update({i: (run[0], columns) for i in run})
        run = [index] if wide else []
    return tables


def _columns(spans: list[tuple[float, float]], height: float) -> list[tuple[float, float]]:
    """The x-spans the words cover, merged across gaps narrower than a gutter."""
    columns: list[list[float]] = []
    for left, right in sorted(spans):
        if columns and left - columns[-1][1] < MIN_GUTTER * height:
            columns[-1][1] = max(columns[-1][1], right)
        else:
            columns.append([left, right])
    return [(left, right) for left, right in columns]


def _column_of(span: tuple[float, float], columns: list[tuple[float, float]]) -> int:
    middle = (span[0] + span[1]) / 2
    return min(range(len(columns)), key=lambda i: abs(sum(columns[i]) / 2 - middle))


def _table_line(line: list[Box], columns: list[tuple[float, float]]) -> str:
    """A table line as tab-separated cells, each the words that fall in its column."""
    cells: list[list[str]] = [[] for _ in columns]
    for box in line:
        words = box.text.split()
        if box.words and len(box.words) == len(words):
            for word, span in zip(words, box.words, strict=True):
                cells[_column_of(span, columns)].append(word)
        else:
            cells[_column_of((box.left, box.right), columns)].append(box.text.strip())
    return "\t".join(" ".join(cell) for cell in cells)


# --- what to read ------------------------------------------------------------------


def image_frames(data: bytes, image_format: str | None = None):
    """Return an image's frame count and a loader per frame (a TIFF may hold many pages).

    Nothing is decoded until a loader runs, so decoding happens under OCR's memory cap and
    page budget; each frame is brought down to `MAX_RENDER_SIDE` a side (the engine's own
    working size), a JPEG while it is decoded.
    """
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    image = Image.open(io.BytesIO(data), formats=[image_format] if image_format else None)
    count = getattr(image, "n_frames", 1)

    def loader(index: int):
        def load():
            image.seek(index)
            if image.format == "JPEG":
                image.draft("RGB", (MAX_RENDER_SIDE, MAX_RENDER_SIDE))
            frame = image.convert("RGB")
            frame.thumbnail((MAX_RENDER_SIDE, MAX_RENDER_SIDE))
            return frame

        return load

    return count, [loader(index) for index in range(count)]


def render_pdf_page(document, index: int):
    """Return page `index` (from 0) of a PDFium document as a PIL image for OCR."""
    page = document[index]
    width, height = page.get_size()
    scale = min(RENDER_DPI / 72, MAX_RENDER_SIDE / max(width, height, 1.0))
    return page.render(scale=scale).to_pil()


def page_has_images(document, index: int) -> bool:
    """Whether a PDF page draws any image, the only thing OCR can read where text is missing."""
    import pypdfium2.raw as pdfium_c

    page = document[index]
    return any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3))


def describe_problem(problem: str, page_seconds: float) -> str:
    """A sentence for the document page about why a page could not be read."""
    return {
        OVER_BUDGET: f"reading it took longer than {page_seconds:g} s",
        NO_TEXT_FOUND: "OCR found no text on it",
        UNREADABLE_IMAGE: "its image could not be opened",
        OVER_PAGE_LIMIT: "it is past the OCR page limit",
    }.get(problem, problem)

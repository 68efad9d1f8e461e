"""Extract a stored file in a child process with a memory cap and a time budget.

A hostile or merely huge file (a DOCX holding 63 MB of XML, a PDF with pathological content
streams) must not take a worker's memory or hold its slot for minutes. The child imports only
the extraction code, caps its address space (RLIMIT_AS) and CPU time (RLIMIT_CPU), and is
killed when the wall-clock budget runs out or the ingestion is cancelled. It prints the
extracted segments as JSON on stdout; an ExtractionError comes back with its code.

OCR (knowledge/ingest/ocr.py) needs more memory than parsing, so a file that may need it gets
two caps: the parsing cap as the soft limit and the OCR cap as the hard one, which the child
raises itself to only when a page needs reading. Each page it reads is announced on a pipe:
the worker shows it as progress and adds the page's budget to the wall-clock budget.

    python -m knowledge.ingest.sandbox <path> <file name> [<OCR options as JSON> <pipe fd>]
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from knowledge.ingest.extract import extract
from knowledge.ingest.extracted import ExtractedText, ExtractionError
from knowledge.ingest.ocr import ENGINE_THREADS, OcrOptions

EXTRACTION_TIMEOUT = "extraction_timeout"
EXTRACTION_MEMORY = "extraction_memory"
EXTRACTION_FAILED = "extraction_failed"
POLL_SECONDS = 0.2
ROOT = Path(__file__).resolve().parents[2]


class SandboxCancelled(Exception):
    """The ingestion was cancelled while its file was being extracted."""


def _limits(
    memory_bytes: int, ocr_memory_bytes: int, cpu_seconds: int, ocr_cpu_seconds: int
) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, max(memory_bytes, ocr_memory_bytes)))
        resource.setrlimit(
            resource.RLIMIT_CPU, (cpu_seconds, max(cpu_seconds + 1, cpu_seconds + ocr_cpu_seconds))
        )

    return apply


def extract_sandboxed(
    path: Path,
    file_name: str,
    *,
    timeout: float,
    memory_mb: int,
    should_stop: Callable[[], bool] = lambda: False,
    ocr: OcrOptions | None = None,
    ocr_memory_mb: int = 0,
    on_ocr_page: Callable[[int, int], None] | None = None,
) -> ExtractedText:
    """Return the text of a stored file, extracted under the memory and time budget.

    With `ocr`, scanned pages and images are read by OCR under `ocr_memory_mb`, each page
    adding its budget to `timeout`; `on_ocr_page(n, total)` hears of each page as it starts.
    """
    command = [sys.executable, "-m", "knowledge.ingest.sandbox", str(path), file_name]
    ocr_cpu = 0
    if ocr is not None:
        # Every page may take its budget on each of the engine's threads.
        ocr_cpu = int(ocr.page_seconds * ocr.max_pages * ENGINE_THREADS) + 1
    pages_read, pages_write = os.pipe()
    try:
        os.set_blocking(pages_read, False)
        if ocr is not None:
            command += [json.dumps(ocr.to_json()), str(pages_write)]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            process = subprocess.Popen(
                command,
                cwd=ROOT,
                stdout=out,
                stderr=err,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                pass_fds=(pages_write,),
                preexec_fn=_limits(
                    memory_mb * 1024 * 1024, ocr_memory_mb * 1024 * 1024, int(timeout) + 1, ocr_cpu
                ),
            )
            os.close(pages_write)
            pages_write = -1
            _wait(process, pages_read, timeout, file_name, should_stop, ocr, on_ocr_page)
            out.seek(0)
            err.seek(0)
            output, errors = out.read(), err.read().decode("utf-8", "replace")
    finally:
        for fd in (pages_read, pages_write):
            if fd >= 0:
                os.close(fd)
    memory = f"{memory_mb} MB" + (f" ({ocr_memory_mb} MB to read scans)" if ocr else "")
    return _result(process.returncode, output, errors, file_name, memory, timeout)


def _wait(process, pages_read: int, timeout: float, file_name: str, should_stop, ocr, on_page):
    """Wait for the child: stop it when cancelled or over time; hear of each page it reads.

    Each page adds its budget to the deadline, at most `ocr.max_pages` times and only for
    pages announced in order (1, 2, 3...), so a child cannot buy itself more time.
    """
    deadline = time.monotonic() + timeout
    pending = b""
    announced = 0
    while True:
        try:
            process.wait(timeout=max(min(POLL_SECONDS, deadline - time.monotonic()), 0.001))
            return
        except subprocess.TimeoutExpired:
            pass
        pending, pages = _read_announcements(pages_read, pending)
        for page, total in pages:
            if ocr is None or page != announced + 1 or page > ocr.max_pages:
                continue
            announced = page
            deadline += ocr.page_seconds
            if on_page:
                on_page(page, min(total, ocr.max_pages))
        _stop_if(process, should_stop, deadline, timeout, file_name)


def _read_announcements(fd: int, pending: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """Return what is left of a partial line, and the (page, total) lines the child wrote."""
    try:
        pending += os.read(fd, 65536)
    except BlockingIOError:
        return pending, []
    *lines, rest = pending.split(b"\n")
    rest = rest[-64:]  # a line is "page total"; anything longer is not one
    pages = []
    for line in lines:
        page, _, total = line.decode("ascii", "replace").partition(" ")
        if page.isdigit() and total.isdigit():
            pages.append((int(page), int(total)))
    return rest, pages


def _stop_if(process, should_stop, deadline: float, timeout: float, file_name: str) -> None:
    if should_stop():
        process.kill()
        process.wait()
        raise SandboxCancelled()
    if time.monotonic() >= deadline:
        process.kill()
        process.wait()
        raise ExtractionError(
            EXTRACTION_TIMEOUT,
            f"Extracting {file_name!r} took longer than {timeout:g}s; it was stopped.",
        )


def _result(
    returncode: int, output: bytes, errors: str, file_name: str, memory: str, timeout: float
) -> ExtractedText:
    if returncode == 0:
        result = json.loads(output)
        if "error" in result:
            message = result["error"]["message"]
            if result["error"]["code"] == EXTRACTION_MEMORY:
                message = f"Extracting {file_name!r} needed more than {memory}."
            raise ExtractionError(result["error"]["code"], message)
        return ExtractedText.from_json(result)
    if "MemoryError" in errors:
        raise ExtractionError(
            EXTRACTION_MEMORY, f"Extracting {file_name!r} needed more than {memory}."
        )
    if returncode == -signal.SIGXCPU:
        raise ExtractionError(
            EXTRACTION_TIMEOUT, f"Extracting {file_name!r} used more than {timeout:.0f}s of CPU."
        )
    raise ExtractionError(
        EXTRACTION_FAILED, f"Extracting {file_name!r} failed: {errors.strip()[-300:]}"
    )


def _near_memory_cap() -> bool:
    """Whether this process's peak address space came close to its RLIMIT_AS.

    Parsers do not all fail with MemoryError when allocation fails (lxml reports "unknown
    error"), so a failure near the cap is taken for what it is.
    """
    cap, _ = resource.getrlimit(resource.RLIMIT_AS)
    if cap == resource.RLIM_INFINITY:
        return False
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmPeak:"):
                return int(line.split()[1]) * 1024 >= 0.9 * cap
    return False


def main(argv: list[str]) -> int:
    path, file_name = Path(argv[0]), argv[1]
    ocr = None
    if len(argv) >= 4:
        announce = os.fdopen(int(argv[3]), "w", buffering=1)

        def on_page(page: int, total: int) -> None:
            announce.write(f"{page} {total}\n")

        ocr = OcrOptions.from_json(json.loads(argv[2]))
        ocr = OcrOptions(page_seconds=ocr.page_seconds, max_pages=ocr.max_pages, on_page=on_page)
    try:
        extracted = extract(path.read_bytes(), file_name, ocr=ocr)
    except (ExtractionError, MemoryError) as exc:
        if isinstance(exc, MemoryError) or _near_memory_cap():
            error = {
                "code": EXTRACTION_MEMORY,
                "message": f"Extracting {file_name!r} ran out of memory.",
            }
        else:
            error = {"code": exc.code, "message": exc.message}
        json.dump({"error": error}, sys.stdout)
        return 0
    json.dump(extracted.to_json(), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

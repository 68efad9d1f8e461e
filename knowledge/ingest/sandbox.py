"""Extract a stored file in a child process with a memory cap and a time budget.

A hostile or merely huge file (a DOCX holding 63 MB of XML, a PDF with pathological content
streams) must not take a worker's memory or hold its slot for minutes. The child imports only
the extraction code, caps its address space (RLIMIT_AS) and CPU time (RLIMIT_CPU), and is
killed when the wall-clock budget runs out or the ingestion is cancelled. It prints the
extracted segments as JSON on stdout; an ExtractionError comes back with its code.

    python -m knowledge.ingest.sandbox <path> <file name>
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

from knowledge.ingest.extract import ExtractedText, ExtractionError, Segment, extract

EXTRACTION_TIMEOUT = "extraction_timeout"
EXTRACTION_MEMORY = "extraction_memory"
EXTRACTION_FAILED = "extraction_failed"
POLL_SECONDS = 0.2
ROOT = Path(__file__).resolve().parents[2]


class SandboxCancelled(Exception):
    """The ingestion was cancelled while its file was being extracted."""


def _limits(memory_bytes: int, cpu_seconds: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))

    return apply


def extract_sandboxed(
    path: Path,
    file_name: str,
    *,
    timeout: float,
    memory_mb: int,
    should_stop: Callable[[], bool] = lambda: False,
) -> ExtractedText:
    """Return the text of a stored file, extracted under the memory and time budget."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "knowledge.ingest.sandbox", str(path), file_name],
            cwd=ROOT,
            stdout=out,
            stderr=err,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            preexec_fn=_limits(memory_mb * 1024 * 1024, int(timeout) + 1),
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                process.wait(timeout=max(min(POLL_SECONDS, deadline - time.monotonic()), 0.001))
                break
            except subprocess.TimeoutExpired:
                pass
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
        out.seek(0)
        err.seek(0)
        output, errors = out.read(), err.read().decode("utf-8", "replace")
    if process.returncode == 0:
        result = json.loads(output)
        if "error" in result:
            message = result["error"]["message"]
            if result["error"]["code"] == EXTRACTION_MEMORY:
                message = f"Extracting {file_name!r} needed more than {memory_mb} MB."
            raise ExtractionError(result["error"]["code"], message)
        return ExtractedText(
            segments=[Segment.from_json(segment) for segment in result["segments"]],
            encoding=result.get("encoding"),
        )
    if "MemoryError" in errors:
        raise ExtractionError(
            EXTRACTION_MEMORY, f"Extracting {file_name!r} needed more than {memory_mb} MB."
        )
    if process.returncode == -signal.SIGXCPU:
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
    try:
        extracted = extract(path.read_bytes(), file_name)
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
    json.dump(
        {
            "segments": [segment.to_json() for segment in extracted.segments],
            "encoding": extracted.encoding,
        },
        sys.stdout,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
